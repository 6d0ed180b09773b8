import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { GRAPHIQL_CSP } from '../src/http/graphiql.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';
import { rootActor } from '../src/model/actor.js';
import { ensureUiBuilt } from './support/ui-build.js';
import { artifactPath } from './support/run-env.js';
import { chromiumSuite, launchChromium } from './support/browser.js';
import type { Browser } from 'playwright-core';

const PAGE = '/api/graphiql';
const SAMPLE_URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_created,PROD)';
const PAGE_SCRIPT = path.resolve(import.meta.dirname, '../src/http/graphiql-page.js');

const EXPECTED_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

/** Every src/href of the page, as absolute paths on our origin (data: URLs excluded). */
function references(html: string): string[] {
  return [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)]
    .map((m) => m[1]!)
    .filter((ref) => !ref.startsWith('data:'))
    .map((ref) => {
      const u = new URL(ref, `http://127.0.0.1${PAGE}`);
      return u.pathname + u.search;
    });
}

const absoluteUrls = (text: string) => [...text.matchAll(/\bhttps?:\/\/[^\s"'<>)]+/g)].map((m) => m[0]);

describe('GraphQL explorer page (in-process)', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp({ engine: 'sqlite', url: 'sqlite::memory:' });
  });
  after(async () => t?.close());

  test('GET /api/graphiql is a public UTF-8 HTML page under a strict CSP', async () => {
    const res = await t.app.inject({ method: 'GET', url: PAGE });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['content-security-policy'], EXPECTED_CSP);
    assert.equal(GRAPHIQL_CSP, EXPECTED_CSP);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.match(res.body, /<meta charset="utf-8">/);
    assert.match(res.body, /<title>Almanac GraphQL explorer<\/title>/);
    assert.match(res.body, /<label for="token">Access token<\/label>/);
    // No inline script: every <script> has a src and no body.
    for (const m of res.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      assert.match(m[1]!, /\bsrc="/, `inline script: ${m[0]}`);
      assert.equal(m[2]!.trim(), '', `script with a body: ${m[0]}`);
    }
    assert.doesNotMatch(res.body, /\bon[a-z]+="/, 'inline event handler attribute');
    assert.deepEqual(absoluteUrls(res.body), [], 'the page must not reference another origin');
  });

  test('our page script references no other origin and holds the example query, the README\'s', () => {
    const script = readFileSync(PAGE_SCRIPT, 'utf8');
    assert.deepEqual(absoluteUrls(script), []);
    assert.ok(script.includes(`'  dataset(urn: "${SAMPLE_URN}") {',`), 'the example query reads the sample dataset');
    // The README's GraphQL example asks for the same fields, so that the explorer's first answer is the one shown there.
    const readme = readFileSync(path.resolve(import.meta.dirname, '../README.md'), 'utf8');
    assert.ok(readme.includes(`{ dataset(urn: \\"${SAMPLE_URN}\\") { urn properties { name description } schemaMetadata { fields { fieldPath description } } } }`), 'the README shows the sample query');
    assert.match(script, /'almanac\.token'/);
  });

  test('every asset the page references is served, public, with its content type and long caching', async () => {
    const page = await t.app.inject({ method: 'GET', url: PAGE });
    const refs = references(page.body);
    assert.deepEqual(refs.map((r) => r.replace(/\?v=[\w-]+$/, '')).sort(), [
      '/api/graphiql/assets/graphiql-page.js',
      '/api/graphiql/assets/graphiql.min.css',
      '/api/graphiql/assets/graphiql.min.js',
      '/api/graphiql/assets/react-dom.production.min.js',
      '/api/graphiql/assets/react.production.min.js',
    ]);
    for (const ref of refs) {
      assert.match(ref, /\?v=[\w-]{16}$/, `${ref} is not versioned`);
      const res = await t.app.inject({ method: 'GET', url: ref });
      assert.equal(res.statusCode, 200, ref);
      const type = ref.includes('.css') ? 'text/css; charset=utf-8' : 'application/javascript; charset=utf-8';
      assert.equal(res.headers['content-type'], type, ref);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable', ref);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', ref);
      assert.ok(res.rawPayload.length > 0, ref);
    }
    // Our own script is served verbatim.
    const script = await t.app.inject({ method: 'GET', url: '/api/graphiql/assets/graphiql-page.js' });
    assert.equal(script.body, readFileSync(PAGE_SCRIPT, 'utf8'));
  });

  test('assets are gzipped on request and revalidate with their ETag', async () => {
    const plain = await t.app.inject({ method: 'GET', url: '/api/graphiql/assets/graphiql.min.js' });
    const zipped = await t.app.inject({ method: 'GET', url: '/api/graphiql/assets/graphiql.min.js',
      headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(zipped.statusCode, 200);
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.ok(zipped.rawPayload.length < plain.rawPayload.length / 2, `${zipped.rawPayload.length} bytes gzipped of ${plain.rawPayload.length}`);
    assert.ok(gunzipSync(zipped.rawPayload).equals(plain.rawPayload), 'gzipped, the same bytes');
    const again = await t.app.inject({ method: 'GET', url: '/api/graphiql/assets/graphiql.min.js',
      headers: { 'if-none-match': String(plain.headers.etag) } });
    assert.equal(again.statusCode, 304);
  });

  test('only allow-listed assets exist', async () => {
    for (const url of ['/api/graphiql/assets/nope.js', '/api/graphiql/assets/package.json',
      '/api/graphiql/assets/..%2Fpackage.json', '/api/graphiql/assets/graphiql.js', '/api/graphiql/assets/']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.json().code, 'NOT_FOUND', url);
    }
  });

  test('the API itself still needs a token', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/graphql', payload: { query: '{ me { corpUser { urn } } }' } });
    assert.equal(res.statusCode, 401);
  });
});

describe('GraphQL explorer in Chromium', () => {
  const { skip, requireChromium } = chromiumSuite('GraphiQL browser test');

  test('loads offline, takes a token and runs the example query', { skip,
    timeout: 60_000 }, async () => {
    requireChromium();
    const t = await startApp({ engine: 'sqlite', url: 'sqlite::memory:' });
    let browser: Browser | undefined;
    try {
      await ingestSamples(t.catalog, 'bootstrap_mce.json');
      const origin = await t.listen();

      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const page = await context.newPage();

      const foreign: string[] = [];
      const problems: string[] = [];
      page.on('request', (request) => {
        const u = new URL(request.url());
        if (u.protocol === 'data:' || u.protocol === 'blob:') return;
        if (u.hostname !== '127.0.0.1') foreign.push(request.url());
      });
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
      // What the server answered to each GraphQL POST the page made, by operation name.
      const answers = new Map<string, unknown>();
      page.on('response', (res) => {
        const request = res.request();
        if (request.method() !== 'POST' || new URL(res.url()).pathname !== '/api/graphql') return;
        const operationName = (request.postDataJSON() as { operationName?: string } | null)?.operationName ?? '';
        answers.set(operationName, res.json().catch((e: Error) => `unreadable: ${e.message}`));
      });
      page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`));

      const response = await page.goto(`${origin}/api/graphiql`, { waitUntil: 'load' });
      assert.equal(response?.status(), 200);
      await page.locator('.graphiql-container').waitFor({ timeout: 10_000 });
      // The example query is in the editor before anything is typed.
      await page.locator('.graphiql-query-editor').getByText('fct_users_created').first().waitFor({ timeout: 5_000 });

      const token = page.getByLabel('Access token');
      await token.fill(t.rootToken);
      await token.press('Enter'); // "Use token": reloads the schema with the token
      assert.equal(await page.evaluate(() => window.localStorage.getItem('almanac.token')), t.rootToken);

      await page.locator('.graphiql-execute-button').click();
      const result = page.locator('.result-window');
      await page.waitForFunction(
        () => (document.querySelector('.result-window') as HTMLElement | null)?.innerText.includes('user_name') ?? false,
        undefined, { timeout: 10_000 });
      const text = await result.innerText();
      assert.ok(text.includes(`"urn": "${SAMPLE_URN}"`), text);
      assert.ok(text.includes('"fieldPath": "user_id"'), text);
      assert.ok(text.includes('"fieldPath": "user_name"'), text);
      assert.ok(!text.includes('"errors"'), text);
      assert.ok(!text.includes('Â'), `mojibake in the result pane: ${text}`);
      // The schema was loaded with the token (completion, docs), and the query's whole answer is the expected one.
      const introspection = (await answers.get('IntrospectionQuery')) as { data?: { __schema?: { queryType?: { name: string } } } };
      assert.equal(introspection?.data?.__schema?.queryType?.name, 'Query', JSON.stringify(introspection)?.slice(0, 500));
      assert.deepEqual(await answers.get('getDataset'), {
        data: {
          dataset: {
            urn: SAMPLE_URN,
            properties: { name: 'fct_users_created', description: 'table containing all the users created on a single day' },
            schemaMetadata: { fields: [
              { fieldPath: 'user_id', description: 'Id of the user created' },
              { fieldPath: 'user_name', description: 'Name of the user who signed up' },
            ] },
          },
        },
        extensions: {},
      });

      await page.screenshot({ path: artifactPath('graphiql.png') }); // test-artifacts/, git-ignored

      // The token survives a reload.
      await page.reload({ waitUntil: 'load' });
      assert.equal(await page.getByLabel('Access token').inputValue(), t.rootToken);

      assert.deepEqual(foreign, [], 'the explorer requested another origin');
      assert.deepEqual(problems, [], 'console errors, CSP violations or failed requests');
    } finally {
      await browser?.close();
      await t.close();
    }
  });

  test('signed in to the UI, the explorer uses the session: a query runs with no token pasted', { skip,
    timeout: 60_000 }, async () => {
    requireChromium();
    ensureUiBuilt(); // the UI's sign-in page
    const t = await startApp({ engine: 'sqlite', url: 'sqlite::memory:' });
    let browser: Browser | undefined;
    try {
      await ingestSamples(t.catalog, 'bootstrap_mce.json');
      await t.catalog.nativeUsers.setPassword('urn:li:corpuser:datahub', 'correct horse battery', rootActor());
      const origin = await t.listen();
      browser = await launchChromium();
      const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
      const sent: { operationName: string; authorization: string | undefined; cookie: boolean }[] = [];
      const answers = new Map<string, unknown>();
      // The explorer's requests only: those made once the test goes to it (the UI's home page may still be waiting for
      // the answer to its own query then).
      let recording = false;
      const explorers = new Set<unknown>();
      page.on('request', (request) => { if (recording) explorers.add(request); });
      page.on('response', async (res) => {
        const request = res.request();
        if (!explorers.has(request) || request.method() !== 'POST' || new URL(res.url()).pathname !== '/api/graphql') return;
        const headers = await request.allHeaders();
        const operationName = (request.postDataJSON() as { operationName?: string } | null)?.operationName ?? '';
        sent.push({ operationName, authorization: headers.authorization, cookie: /PLAY_SESSION=/.test(headers.cookie ?? '') });
        answers.set(operationName, res.json().catch((e: Error) => `unreadable: ${e.message}`));
      });

      // Signed in through the UI's sign-in page, with a password: session cookies, no token anywhere.
      await page.goto(`${origin}/`);
      await page.getByLabel('User name').fill('datahub');
      await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Your catalog' }).waitFor();
      recording = true;

      await page.goto(`${origin}/api/graphiql`, { waitUntil: 'load' });
      await page.locator('.graphiql-container').waitFor({ timeout: 10_000 });
      assert.equal(await page.getByLabel('Access token').inputValue(), '');
      assert.equal(await page.locator('#token-hint').innerText(),
        'Signed in as urn:li:corpuser:datahub: queries use your session. A token pasted here is used instead.');
      await page.locator('.graphiql-query-editor').getByText('fct_users_created').first().waitFor({ timeout: 5_000 });
      await page.locator('.graphiql-execute-button').click();
      await page.waitForFunction(
        () => (document.querySelector('.result-window') as HTMLElement | null)?.innerText.includes('user_name') ?? false,
        undefined, { timeout: 10_000 });
      const introspection = (await answers.get('IntrospectionQuery')) as { data?: { __schema?: { queryType?: { name: string } } } };
      assert.equal(introspection?.data?.__schema?.queryType?.name, 'Query', JSON.stringify(introspection)?.slice(0, 500));
      assert.deepEqual(await answers.get('getDataset'), {
        data: {
          dataset: {
            urn: SAMPLE_URN,
            properties: { name: 'fct_users_created', description: 'table containing all the users created on a single day' },
            schemaMetadata: { fields: [
              { fieldPath: 'user_id', description: 'Id of the user created' },
              { fieldPath: 'user_name', description: 'Name of the user who signed up' },
            ] },
          },
        },
        extensions: {},
      });
      // Both requests carried the session cookie and no Authorization header.
      assert.deepEqual(sent.map((s) => [s.operationName, s.authorization, s.cookie]),
        [['IntrospectionQuery', undefined, true], ['getDataset', undefined, true]]);
      assert.deepEqual(problems, [], 'console errors, CSP violations or failed requests');
    } finally {
      await browser?.close();
      await t.close();
    }
  });
});
