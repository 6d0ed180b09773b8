import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { rootActor, systemActor } from '../src/model/actor.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';
import { artifactPath } from './support/run-env.js';
import { ensureUiBuilt } from './support/ui-build.js';
import { audit, chromiumSuite, launchChromium, signedInContext, switchTheme, watchPage } from './support/browser.js';

/**
 * A new user's walk through Almanac's web UI (issue 35), in Chromium against a real server: the home page's modules
 * (totals, announcements, recently viewed and searched, most popular, platforms, domains, top tags and terms, each
 * leading somewhere), Markdown-free search snippets with platform display names, the history's long JSON kept in its
 * box, lineage badges clear of node titles at every zoom, the column tag box focused, the tests page's counts and its
 * run of every test, the account menu, the browse path shown only when it says something, GraphiQL from the header,
 * and the admin home's grid. axe-core checks each page in both themes (no serious or critical violation); screenshots
 * go to test-artifacts/ui-walk-*.png. SQLite only: the UI reads the GraphQL API, which the API suites test on both
 * engines (runAllTests among them, in ui-api.test.ts).
 */
const ds = (platform: string, name: string) => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`;
const CREATED = ds('hive', 'fct_users_created');
const DELETED = ds('hive', 'fct_users_deleted');
const HIVE = ds('hive', 'SampleHiveDataset');
const MARKDOWN = 'Table containing **all** the users created on a _single_ day, from [the logs](https://example.com/logs) in `ds`.';
const TEST_URN = 'urn:li:test:owned-documented';
const enc = encodeURIComponent;

describe('web UI: a new user\'s walk (issue 35), in Chromium', { timeout: 300_000 }, () => {
  const { skip, requireChromium } = chromiumSuite('web UI walk browser tests');

  let t: TestApp;
  let origin = '';
  let browser: Browser | undefined;
  const problems: string[] = [];
  const foreign: string[] = [];

  before(async () => {
    if (skip) return;
    requireChromium();
    ensureUiBuilt();
    t = await startApp({ engine: 'sqlite', url: 'sqlite::memory:' });
    await ingestSamples(t.catalog, 'bootstrap_mce.json', 'data_platforms.json', 'test_containers.json', 'test_domains.json');
    // Usage in the last 30 days (the samples' is from 2021): fct_users_created is the most popular dataset.
    await t.catalog.entities.ingest([{ urn: CREATED, entityType: 'dataset', aspect: 'datasetUsageStatistics', changeType: 'UPSERT',
      systemMetadata: null, value: { timestampMillis: Date.now() - 86_400_000, eventGranularity: { unit: 'DAY', multiple: 1 }, totalSqlQueries: 42,
        uniqueUserCount: 3 } }], systemActor());
    for (const [query, vars] of [
      ['mutation m($input: DescriptionUpdateInput!) { updateDescription(input: $input) }', { input: { description: MARKDOWN, resourceUrn: CREATED } }],
      ['mutation { addTerm(input: { termUrn: "urn:li:glossaryTerm:SavingAccount", resourceUrn: "' + DELETED + '" }) }', {}],
      ['mutation { createPost(input: { postType: HOME_PAGE_ANNOUNCEMENT, content: { contentType: TEXT, title: "Welcome to the catalog", description: "The **users** tables moved to `hive`." } }) }', {}],
    ] as const) {
      const r = await t.graphql(query, vars);
      assert.deepEqual(r.body.errors, undefined, JSON.stringify(r.body));
    }
    await t.catalog.metadataTests.create({ id: 'owned-documented', name: 'Owner and description', category: 'Quality',
      description: 'Every dataset has an owner and a description.', definition: { json: JSON.stringify({
        on: { types: ['dataset'] },
        rules: { and: [{ property: 'ownership.owners.owner', operator: 'exists' },
          { or: [{ property: 'editableDatasetProperties.description', operator: 'exists' }, { property: 'datasetProperties.description', operator: 'exists' }] }] },
      }) } }, rootActor());
    origin = await t.listen();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A page signed in with the root user's token (as the sign-in page's token form leaves it). */
  async function newPage(colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const context = await signedInContext(browser!, t.rootToken, { viewport: { width: 1366, height: 860 }, colorScheme });
    return watchPage(await context.newPage(), problems, foreign, { warnings: true });
  }

  const settled = (page: Page) => page.waitForFunction(() => !document.querySelector('[role="status"]')?.textContent?.includes('Loading'),
    undefined, { timeout: 15_000 });

  const texts = (page: Page, selector: string) => page.locator(selector).allInnerTexts().then((l) => l.map((s) => s.replace(/\s+/g, ' ').trim()));

  test('home page: totals, announcements, what I viewed and searched, most popular, platforms, domains, tags and terms, each a way on', { skip }, async () => {
    const page = await newPage();
    // What the user did first: opened a dataset's page and searched.
    await page.goto(`${origin}/dataset/${enc(HIVE)}`);
    await page.locator('#entity-name').waitFor();
    // Typed in the header's box: searched as typed ("u", "us", …), remembered once.
    await page.keyboard.press('/');
    await page.keyboard.type('users', { delay: 120 });
    await page.getByTestId('result-count').filter({ hasText: 'for “users”' }).waitFor();
    await page.getByRole('link', { name: 'Almanac home' }).click();
    await page.getByRole('heading', { name: 'Your catalog' }).waitFor();
    await page.getByTestId('home-platforms').locator('li').first().waitFor();
    await page.getByTestId('home-totals').locator('li').first().waitFor();

    // The totals are getEntityCounts', each a search of its type.
    const counts = await t.graphql('{ getEntityCounts(input: { types: [DATASET, CHART, DASHBOARD, DATA_JOB, DATA_FLOW, CONTAINER, DOMAIN, DATA_PRODUCT, TAG, GLOSSARY_TERM, GLOSSARY_NODE, CORP_USER, CORP_GROUP, MLMODEL, MLMODEL_GROUP, MLFEATURE_TABLE, MLFEATURE, MLPRIMARY_KEY, NOTEBOOK] }) { counts { entityType count } } }');
    const nonZero = (counts.body.data.getEntityCounts.counts as { entityType: string; count: number }[]).filter((c) => c.count > 0);
    const total = nonZero.reduce((n, c) => n + c.count, 0);
    assert.match(await page.locator('.home-head p').innerText(), new RegExp(`^${total} entities\\.`));
    const datasets = nonZero.find((c) => c.entityType === 'DATASET')!.count;
    assert.equal(await page.getByTestId('home-totals').getByRole('link', { name: `${datasets} Datasets` }).getAttribute('href'), '/search?q=*&type=DATASET');

    // Announcements: the post, its Markdown as text.
    assert.deepEqual(await texts(page, '[data-testid="home-posts"] li'), [`Welcome to the catalog · ${new Date().toLocaleDateString('en-US')} The users tables moved to hive.`]);
    // Recently viewed: the dataset opened; recent searches: the query.
    assert.deepEqual(await texts(page, '[data-testid="home-recent-views"] li a'), ['SampleHiveDataset']);
    assert.equal(await page.getByTestId('home-recent-views').getByRole('link', { name: 'SampleHiveDataset' }).getAttribute('href'), `/dataset/${enc(HIVE)}`);
    assert.deepEqual(await texts(page, '[data-testid="home-recent-searches"] li'), ['users']);
    assert.equal(await page.getByTestId('home-recent-searches').getByRole('link', { name: 'users' }).getAttribute('href'), '/search?q=users');
    // Most popular: the dataset with usage in the last 30 days, with its type and platform.
    assert.deepEqual(await texts(page, '[data-testid="home-popular"] li'), ['fct_users_created DATASET Hive']);
    // Platforms with their counts (the platform facet's), by display name; domains, tags and terms likewise.
    const facets = await t.graphql('{ searchAcrossEntities(input: { query: "*", count: 0 }) { facets { field aggregations { value count } } } }');
    const facet = (field: string) => (facets.body.data.searchAcrossEntities.facets as { field: string; aggregations: { value: string; count: number }[] }[])
      .find((f) => f.field === field)!.aggregations;
    const platforms = await texts(page, '[data-testid="home-platforms"] li');
    assert.equal(platforms[0], `Feast ${facet('platform').find((a) => a.value === 'urn:li:dataPlatform:feast')!.count}`);
    assert.ok(platforms.includes(`Hive ${facet('platform').find((a) => a.value === 'urn:li:dataPlatform:hive')!.count}`), platforms.join(' | '));
    // A platform the catalog knows only by name (science, no properties) is capitalized, as DataHub's app shows it.
    assert.ok(platforms.every((p) => /^[A-Z]/.test(p)), `display names: ${platforms.join(' | ')}`);
    assert.ok(platforms.includes('Science 1'), platforms.join(' | '));
    assert.deepEqual(await texts(page, '[data-testid="home-domains"] li'), ['Sales 1']);
    assert.deepEqual(await texts(page, '[data-testid="home-tags"] li'), [`Legacy ${facet('tags').find((a) => a.value === 'urn:li:tag:Legacy')!.count}`]);
    assert.deepEqual(await texts(page, '[data-testid="home-terms"] li'), ['SavingAccount 1']);
    await page.mouse.move(0, 0);
    await audit(page, 'walk-home');
    // Both themes pass axe.
    await switchTheme(page, 'dark');
    await audit(page, 'walk-home-dark');
    await switchTheme(page, 'light');

    // Each leads on: the domain to its page, the term and the platform to the search filtered by them.
    await page.getByTestId('home-domains').getByRole('link', { name: 'Sales' }).click();
    await page.getByRole('heading', { name: 'Sales', level: 1 }).waitFor();
    await page.goBack();
    await page.getByTestId('home-terms').getByRole('link', { name: 'SavingAccount' }).click();
    await page.getByTestId('result-count').filter({ hasText: /^1 result$/ }).waitFor();
    assert.deepEqual(await texts(page, '.results .title'), ['fct_users_deleted']);
    await page.goBack();
    await page.getByTestId('home-platforms').getByRole('link', { name: 'Hive' }).click();
    await page.waitForURL(/f=platform%3Aurn%3Ali%3AdataPlatform%3Ahive/);
    await page.getByRole('checkbox', { name: /^Hive/ }).and(page.locator(':checked')).waitFor();
    await page.context().close();
    assert.deepEqual(problems.splice(0), []);
  });

  test('search: descriptions\' Markdown as plain text, highlighted; platforms by display name in facets and results', { skip }, async () => {
    const page = await newPage();
    await page.goto(`${origin}/search?q=users`);
    const created = page.locator('.result', { has: page.locator('.title', { hasText: /^fct_users_created$/ }) });
    await created.waitFor();
    await settled(page);
    assert.equal(await created.locator('.desc').innerText(), 'Table containing all the users created on a single day, from the logs in ds.');
    assert.deepEqual(await created.locator('.desc mark').allInnerTexts(), ['users']);
    // Platform names: the facet's labels and the results' badges are the platforms' display names.
    await page.locator('#facet-platform').waitFor();
    const facetNames = await page.locator('section[aria-labelledby="facet-platform"] .name').allInnerTexts();
    const badges = new Set(await page.locator('.results .platform').allInnerTexts());
    const known = await t.graphql('{ searchAcrossEntities(input: { query: "users", count: 0 }) { facets { field aggregations { entity { ... on DataPlatform { properties { displayName } } } } } } }');
    const displayNames = (known.body.data.searchAcrossEntities.facets as { field: string; aggregations: { entity: { properties: { displayName: string } } }[] }[])
      .find((f) => f.field === 'platform')!.aggregations.map((a) => a.entity.properties.displayName);
    assert.deepEqual(facetNames, displayNames);
    assert.deepEqual([...badges].sort(), [...displayNames].sort());
    assert.ok(facetNames.includes('Airflow'), facetNames.join(', '));
    await page.mouse.move(0, 0);
    await audit(page, 'walk-search');
    await switchTheme(page, 'dark');
    await audit(page, 'walk-search-dark');
    await page.context().close();
    assert.deepEqual(problems.splice(0), []);
  });

  test('history: a version\'s long JSON wraps inside its own box, never under the sidebar', { skip }, async () => {
    const long = `${'x'.repeat(600)} and ${'urn:li:dataset:(urn:li:dataPlatform:hive,very_long_name,PROD)'.repeat(8)}`;
    const r = await t.graphql('mutation m($input: DescriptionUpdateInput!) { updateDescription(input: $input) }', { input: { description: long, resourceUrn: DELETED } });
    assert.deepEqual(r.body.errors, undefined);
    const page = await newPage();
    await page.goto(`${origin}/dataset/${enc(DELETED)}/history`);
    await page.getByRole('heading', { name: 'History of changes' }).waitFor();
    const row = page.locator('.history-table tbody tr', { hasText: 'editableDatasetProperties' }).first();
    await row.locator('summary').click();
    const json = row.locator('pre');
    await json.waitFor();
    const box = (await json.boundingBox())!;
    const main = (await page.locator('.entity-main').boundingBox())!;
    const sidebar = (await page.locator('aside.sidebar').boundingBox())!;
    assert.ok(box.x + box.width <= main.x + main.width + 0.5, `the JSON (right edge ${box.x + box.width}) stays in the main column (${main.x + main.width})`);
    assert.ok(box.x + box.width < sidebar.x, 'and left of the sidebar');
    // Wrapped: nothing wider than its box (the table does not scroll sideways either).
    assert.equal(await json.evaluate((e) => e.scrollWidth <= e.clientWidth), true, 'no sideways overflow in the JSON box');
    assert.equal(await page.locator('.history-table').evaluate((e) => e.parentElement!.scrollWidth <= e.parentElement!.clientWidth), true, 'the table fits');
    assert.match(await json.innerText(), /very_long_name/);
    await audit(page, 'walk-history');
    await switchTheme(page, 'dark');
    await audit(page, 'walk-history-dark');
    await page.context().close();
    assert.deepEqual(problems.splice(0), []);
  });

  test('lineage: the "+n" badges never cover a node\'s title, at every zoom level', { skip }, async () => {
    const page = await newPage();
    await page.goto(`${origin}/lineage/${enc(HIVE)}`);
    await page.locator('.lin-node .lin-expand').first().waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => (document.querySelector('.lin-busy')?.textContent ?? '') === '', undefined, { timeout: 30_000 });
    // (No named functions inside: the test's compiler would wrap them in a helper the page does not have.)
    const overlaps = () => page.evaluate(() => {
      const badges = [...document.querySelectorAll('.lin-expand')].map((e) => ({ label: e.getAttribute('aria-label'), r: e.getBoundingClientRect() }));
      const titles = [...document.querySelectorAll('.lin-name, .lin-kind')].map((e) => ({ text: e.textContent, r: e.getBoundingClientRect() }));
      const out: string[] = [];
      for (const b of badges) {
        for (const n of titles) {
          if (b.r.left < n.r.right && n.r.left < b.r.right && b.r.top < n.r.bottom && n.r.top < b.r.bottom) out.push(`${b.label} covers ${n.text}`);
        }
      }
      return { badges: badges.length, out };
    });
    const zoomIn = page.getByRole('button', { name: 'Zoom In' });
    const zoomOut = page.getByRole('button', { name: 'Zoom Out' });
    const seen: number[] = [];
    for (const step of ['fit', 'in', 'in', 'in', 'in', 'out', 'out', 'out', 'out', 'out', 'out', 'out']) {
      if (step === 'in') await zoomIn.click();
      if (step === 'out') await zoomOut.click();
      await page.waitForTimeout(350); // the zoom animates
      const r = await overlaps();
      assert.ok(r.badges > 0, 'badges shown');
      assert.deepEqual(r.out, [], `at zoom step ${seen.length} (${step})`);
      seen.push(r.badges);
    }
    await page.locator('.lin-toolbar').getByRole('button', { name: 'Fit', exact: true }).click();
    await page.waitForTimeout(350);
    await audit(page, 'walk-lineage');
    await switchTheme(page, 'dark');
    await audit(page, 'walk-lineage-dark');
    await page.context().close();
    assert.deepEqual(problems.splice(0), []);
  });

  test('a column\'s "+ tag" and "+ term" open a focused box: typing goes there at once; Escape closes it', { skip }, async () => {
    const page = await newPage();
    await page.goto(`${origin}/dataset/${enc(CREATED)}`);
    const row = page.locator('tr[data-field-path="user_name"]');
    await row.waitFor();
    await row.getByRole('button', { name: 'Add a tag to user_name' }).click();
    const tag = row.getByRole('textbox', { name: 'Add a tag to user_name' });
    assert.equal(await tag.evaluate((e) => e === document.activeElement), true, 'the tag box has the focus');
    await page.keyboard.type('Leg');
    await row.getByRole('button', { name: 'Legacy' }).click();
    await row.locator('.pill').filter({ hasText: 'Legacy' }).waitFor();
    await row.getByRole('button', { name: 'Add a term to user_name' }).click();
    const term = row.getByRole('textbox', { name: 'Add a term to user_name' });
    assert.equal(await term.evaluate((e) => e === document.activeElement), true, 'the term box has the focus');
    await page.keyboard.press('Escape');
    await term.waitFor({ state: 'detached' });
    await row.getByRole('button', { name: 'Add a term to user_name' }).waitFor();
    const read = await t.graphql(`{ dataset(urn: "${CREATED}") { editableSchemaMetadata { editableSchemaFieldInfo { fieldPath globalTags { tags { tag { urn } } } } } } }`);
    assert.deepEqual(read.body.data.dataset.editableSchemaMetadata.editableSchemaFieldInfo,
      [{ fieldPath: 'user_name', globalTags: { tags: [{ tag: { urn: 'urn:li:tag:Legacy' } }] } }]);
    await page.context().close();
    assert.deepEqual(problems.splice(0), []);
  });

  test('tests page: says when nothing is stored, runs every test, then shows the counts `almanac tests run` prints', { skip }, async () => {
    const page = await newPage();
    await page.goto(`${origin}/tests`);
    const row = page.getByTestId('test-row').filter({ hasText: 'Owner and description' });
    await row.waitFor();
    // Nothing stored for this test: it says so rather than "0 failing, 0 passing".
    assert.deepEqual((await row.locator('td').allInnerTexts()).slice(2), ['Not run yet']);
    assert.match(await page.getByTestId('tests-run').innerText(), /npx almanac tests run --push/);
    await audit(page, 'walk-tests');
    // What `almanac tests run` counts (evaluated, nothing stored).
    const expected = (await t.catalog.metadataTests.runAll({ push: false }, systemActor())).tests.find((x) => x.urn === TEST_URN)!;
    assert.ok(expected.failing > 0 && expected.passing > 0, JSON.stringify(expected));
    await page.getByRole('button', { name: 'Run all tests now' }).click();
    await page.getByText(/^Evaluated just now over \d+ entities; results stored\./).waitFor();
    assert.equal(await row.getByTestId('failing').innerText(), String(expected.failing));
    assert.equal(await row.getByTestId('passing').innerText(), String(expected.passing));
    // The test's page reads the stored results: the same counts; a dataset's Tests tab agrees for that dataset.
    await row.getByRole('link', { name: 'Owner and description' }).click();
    await page.getByTestId('test-failing-count').filter({ hasText: String(expected.failing) }).waitFor();
    assert.equal(await page.getByTestId('test-passing-count').innerText(), String(expected.passing));
    assert.match(await page.getByTestId('tests-run').innerText(), /Counts are the results stored on entities by the last run/);
    await audit(page, 'walk-test-page');
    await switchTheme(page, 'dark');
    await audit(page, 'walk-test-page-dark');
    await page.context().close();
    assert.deepEqual(problems.splice(0), []);
  });

  test('header: the user as an avatar with a menu (profile, tokens, theme, sign out); GraphiQL linked; no lone "Default" path', { skip }, async () => {
    const page = await newPage();
    await page.goto(`${origin}/dataset/${enc(CREATED)}`);
    await page.locator('#entity-name').waitFor();
    await settled(page);
    // The display name is not shown as text in the header (it read like a link to DataHub); the avatar has its initial.
    const shown = await page.getByRole('banner').evaluate((b) => [...b.querySelectorAll('*')]
      .filter((e) => !e.closest('.visually-hidden') && [...e.childNodes].some((n) => n.nodeType === 3 && /Data Hub/.test(n.textContent ?? ''))).length);
    assert.equal(shown, 0, 'no visible "Data Hub" in the header');
    const account = page.getByRole('banner').getByRole('button', { name: 'Account: Data Hub' });
    assert.equal(await account.locator('.avatar').innerText(), 'D');
    // DataHub's default browse path says nothing: no path under the title. A dataset in containers shows them.
    assert.equal(await page.getByRole('navigation', { name: 'Path' }).count(), 0);
    await page.goto(`${origin}/dataset/${enc(HIVE)}`);
    await page.getByRole('navigation', { name: 'Path' }).waitFor();
    assert.deepEqual(await page.getByRole('navigation', { name: 'Path' }).getByRole('link').allInnerTexts(), ['root_db', 'information_schema']);
    // The menu.
    await account.click();
    assert.equal(await account.getAttribute('aria-expanded'), 'true');
    const menu = page.locator('#user-menu');
    assert.match(await menu.innerText(), /Data Hub\s+Signed in as datahub/);
    assert.equal(await menu.getByRole('link', { name: 'Your profile' }).getAttribute('href'), `/corpuser/${enc('urn:li:corpuser:datahub')}`);
    assert.equal(await menu.getByRole('link', { name: 'Access tokens' }).getAttribute('href'), '/admin/tokens');
    await menu.getByRole('button', { name: 'Sign out' }).waitFor();
    await audit(page, 'walk-menu');
    await menu.getByRole('button', { name: 'Switch to dark theme' }).click();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    await audit(page, 'walk-menu-dark');
    // Escape closes it and gives the focus back; a link in it leads on and closes it.
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    assert.equal(await account.evaluate((e) => e === document.activeElement), true);
    await account.click();
    await menu.getByRole('link', { name: 'Your profile' }).click();
    await page.getByRole('heading', { name: 'Data Hub', level: 1 }).waitFor();
    await menu.waitFor({ state: 'detached' });
    // GraphiQL, from the header, with this page's credentials (the token it keeps).
    const graphiql = page.getByRole('banner').getByRole('link', { name: 'GraphiQL' });
    assert.equal(await graphiql.getAttribute('href'), '/api/graphiql');
    await graphiql.click();
    await page.waitForURL(`${origin}/api/graphiql`);
    assert.equal(await page.locator('#token').inputValue(), t.rootToken);
    await page.context().close();
    assert.deepEqual(problems.splice(0), []);
  });

  test('admin home: a grid of equal-height cards, each saying what it manages', { skip }, async () => {
    const page = await newPage();
    await page.goto(`${origin}/admin`);
    const cards = page.locator('.admin-card');
    await cards.first().waitFor();
    const boxes = await cards.evaluateAll((els) => els.map((e) => { const r = e.getBoundingClientRect(); return { top: Math.round(r.top), height: Math.round(r.height) }; }));
    assert.equal(boxes.length, 5);
    for (const b of boxes) assert.equal(b.height, boxes[0]!.height, `equal heights: ${JSON.stringify(boxes)}`);
    assert.deepEqual(await page.locator('.admin-card .badge').allTextContents(), ['Manages: Personal access tokens', 'Manages: Users', 'Manages: Groups',
      'Manages: Access policies', 'Manages: Time-series storage']);
    await page.locator('.admin-card').filter({ hasText: 'Access policies' }).click();
    await page.waitForURL(`${origin}/admin/policies`);
    await page.goBack();
    await cards.first().waitFor();
    await audit(page, 'walk-admin');
    await switchTheme(page, 'dark');
    await audit(page, 'walk-admin-dark');
    await page.context().close();
    assert.deepEqual(problems.splice(0), []);
  });

  test('the home page\'s JavaScript is within 250 KB gzipped (issue 18\'s budget)', { skip }, async () => {
    const page = await newPage();
    const scripts: Promise<{ url: string; bytes: number }>[] = [];
    page.on('response', (r) => {
      if (r.request().resourceType() === 'script') scripts.push(r.body().then((b) => ({ url: new URL(r.url()).pathname, bytes: gzipSync(b, { level: 9 }).length })));
    });
    await page.goto(`${origin}/`);
    await page.getByTestId('home-platforms').locator('li').first().waitFor();
    const loaded = await Promise.all(scripts);
    const gzipBytes = loaded.reduce((n, l) => n + l.bytes, 0);
    writeFileSync(artifactPath('ui-walk-budget.json'), `${JSON.stringify({ home: { files: loaded.map((l) => l.url).sort(), gzipBytes } }, null, 2)}\n`);
    assert.ok(gzipBytes <= 250 * 1024, `${gzipBytes} bytes`);
    assert.ok(loaded.every((l) => !/xyflow|elk|uplot|axe|LineageGraph|StatsTab/i.test(l.url)), loaded.map((l) => l.url).join(', '));
    await page.context().close();
    assert.deepEqual(problems.splice(0), []);
    assert.deepEqual(foreign, [], 'the UI requested another origin');
  });
});
