import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { rootActor } from '../src/model/actor.js';
import { openCatalog } from '../src/catalog.js';
import { forEachEngine, freshSharedDatabaseUrl } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';
import { runCli } from './support/processes.js';

/**
 * Issue 29's ingestion rules: the system metadata every write stores and logs (item 5), key aspects that disagree with
 * their urn (item 7), DataHub's built-in data platforms (item 8), malformed urns refused on write and left out of
 * reads (item 10).
 */

const enc = encodeURIComponent;
const DEFAULT_SYS = (lastObserved: number) => ({ runId: 'no-run-id-provided', lastObserved, lastRunId: 'no-run-id-provided' });

/** PowerBI's connector output (DataHub 0.12.1's golden_test_report.json): key aspects naming the entity differently from its urn. */
const POWERBI_KEYS = [
  { entityType: 'corpuser', urn: 'urn:li:corpuser:users.User1@foo.com', aspect: 'corpUserKey', sent: { username: 'User1@foo.com' },
    stored: { username: 'users.User1@foo.com' } },
  { entityType: 'chart', urn: 'urn:li:chart:(powerbi,charts.B8E293DC-0C83-4AA0-9BB9-0A8738DF24A0)', aspect: 'chartKey',
    sent: { dashboardTool: 'powerbi', chartId: 'powerbi.linkedin.com/charts/B8E293DC-0C83-4AA0-9BB9-0A8738DF24A0' },
    stored: { dashboardTool: 'powerbi', chartId: 'charts.B8E293DC-0C83-4AA0-9BB9-0A8738DF24A0' } },
  { entityType: 'dashboard', urn: 'urn:li:dashboard:(powerbi,dashboards.7D668CAD-7FFC-4505-9215-655BCA5BEBAE)', aspect: 'dashboardKey',
    sent: { dashboardTool: 'powerbi', dashboardId: 'powerbi.linkedin.com/dashboards/7D668CAD-7FFC-4505-9215-655BCA5BEBAE' },
    stored: { dashboardTool: 'powerbi', dashboardId: 'dashboards.7D668CAD-7FFC-4505-9215-655BCA5BEBAE' } },
];
const keyProposal = (k: typeof POWERBI_KEYS[number]) => ({ entityType: k.entityType, entityUrn: k.urn, changeType: 'UPSERT', aspectName: k.aspect,
  aspect: { json: k.sent } });

/** The malformed urns of the issue, each with why it is refused. */
const MALFORMED: [string, string][] = [
  ['urn:li:dataset:foo', 'a dataset urn has the form urn:li:dataset:(<platform>,<name>,<origin>)'],
  ['urn:li:dataset:(hive,x,PROD)', "its platform 'hive' is not a urn (urn:li:dataset:(<platform>,<name>,<origin>))"],
  ['urn:li:dataset:(urn:li:dataPlatform:hive,x)', 'a dataset urn has the form urn:li:dataset:(<platform>,<name>,<origin>)'],
  ['urn:li:dataset:(urn:li:dataPlatform:hive,x,NOWHERE)',
    "its origin 'NOWHERE' is not an environment (one of DEV, TEST, QA, UAT, EI, PRE, STG, NON_PROD, PROD, CORP)"],
];
const refusal = (urn: string, why: string) => ({ status: 400, code: 'BAD_REQUEST', urn,
  message: `Invalid urn: '${urn}' is not a valid dataset urn: ${why}` });

const properties = (urn: string, description: string) => ({ entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT',
  aspectName: 'datasetProperties', aspect: { value: JSON.stringify({ description, customProperties: {} }), contentType: 'application/json' } });

forEachEngine('ingestion rules (issue 29)', (ctx) => {
  let t: TestApp;
  const warnings: { message: string; fields: Record<string, unknown> }[] = [];
  before(async () => {
    t = await startApp(ctx);
    t.catalog.entities.warn = (message, fields) => warnings.push({ message, fields });
    t.catalog.search.warn = (message, fields) => warnings.push({ message, fields });
  });
  after(async () => t.close());

  const post = (url: string, payload: unknown) =>
    t.app.inject({ method: 'POST', url, headers: { ...t.auth, 'x-restli-protocol-version': '2.0.0' }, payload: payload as object });
  const get = async (url: string) => {
    const res = await t.app.inject({ url, headers: t.auth });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  };
  const head = async () => (await get('/api/changes')).body.head as number;
  const eventsAfter = async (since: number) => (await get(`/api/changes?since=${since}&limit=1000`)).body.events as any[];

  // -------------------------------------------------------------------------------------------------------------
  // Item 5: system metadata

  test('a proposal sent without system metadata is stored and logged with what DataHub fills: runId, lastObserved, lastRunId', async () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,sys_default,PROD)';
    const since = await head();
    const before = Date.now();
    const res = await post('/aspects?action=ingestProposal', { proposal: properties(urn, 'one') });
    assert.deepEqual([res.statusCode, res.json()], [200, { value: urn }]);
    const events = await eventsAfter(since);
    const observed = events[0]?.systemMetadata?.lastObserved;
    assert.equal(typeof observed, 'number', JSON.stringify(events));
    assert.equal(observed >= before && observed <= Date.now(), true, `lastObserved ${observed} is the time of the write`);
    assert.deepEqual(events.map(({ offset: _o, created: _c, ...e }) => e), [
      { entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName: 'datasetKey',
        aspect: { value: JSON.stringify({ platform: 'urn:li:dataPlatform:hive', name: 'sys_default', origin: 'PROD' }), contentType: 'application/json' },
        systemMetadata: DEFAULT_SYS(observed) },
      { entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName: 'datasetProperties',
        aspect: { value: JSON.stringify({ description: 'one', customProperties: {} }), contentType: 'application/json' },
        systemMetadata: DEFAULT_SYS(observed) },
    ]);
    // REST reads serve what is stored: the same system metadata.
    const entity = await get(`/entitiesV2/${enc(urn)}`);
    assert.equal(entity.status, 200);
    assert.deepEqual(Object.fromEntries(Object.entries(entity.body.aspects).map(([k, v]: [string, any]) => [k, v.systemMetadata])),
      { datasetKey: DEFAULT_SYS(observed), datasetProperties: DEFAULT_SYS(observed) });
    // A new value logs the previous system metadata too.
    const next = await head();
    assert.equal((await post('/aspects?action=ingestProposal', { proposal: { ...properties(urn, 'two'),
      systemMetadata: { runId: 'run-2', lastObserved: 1_700_000_000_000 } } })).statusCode, 200);
    const [changed] = await eventsAfter(next);
    assert.deepEqual([changed.systemMetadata, changed.previousSystemMetadata],
      [{ runId: 'run-2', lastObserved: 1_700_000_000_000, lastRunId: 'run-2' }, DEFAULT_SYS(observed)]);
  });

  test('an unchanged value sent again keeps the runId that wrote it; lastObserved and lastRunId follow the new write', async () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,sys_unchanged,PROD)';
    for (const [runId, lastObserved] of [['run-1', 1_700_000_000_000], ['run-2', 1_700_000_500_000]] as const) {
      const res = await post('/aspects?action=ingestProposal', { proposal: { ...properties(urn, 'same'), systemMetadata: { runId, lastObserved } } });
      assert.equal(res.statusCode, 200, res.body);
    }
    const entity = await get(`/entitiesV2/${enc(urn)}?aspects=List(datasetProperties)`);
    assert.deepEqual(entity.body.aspects.datasetProperties.systemMetadata, { runId: 'run-1', lastObserved: 1_700_000_500_000, lastRunId: 'run-2' });
    // Rolling back run-2, which changed nothing, leaves the value run-1 wrote.
    const rollback = await t.graphql('mutation { rollbackIngestion(input: {runId: "run-2"}) }');
    assert.deepEqual(rollback.body.errors, undefined);
    const after = await get(`/aspects/${enc(urn)}?aspect=datasetProperties`);
    assert.deepEqual(after.body.aspect, { 'com.linkedin.dataset.DatasetProperties': { description: 'same', customProperties: {} } });
  });

  // -------------------------------------------------------------------------------------------------------------
  // Item 7: key aspects that disagree with their urn

  test('key aspects that disagree with their urn (PowerBI\'s) are accepted; the key stored is the urn\'s, with one warning each', async () => {
    warnings.length = 0;
    for (const k of POWERBI_KEYS) {
      const res = await post('/aspects?action=ingestProposal', { proposal: keyProposal(k) });
      assert.deepEqual([res.statusCode, res.json()], [200, { value: k.urn }]);
      const stored = await get(`/entitiesV2/${enc(k.urn)}?aspects=List(${k.aspect})`);
      assert.deepEqual(stored.body.aspects[k.aspect].value, k.stored);
    }
    assert.deepEqual(warnings.map((w) => [w.fields.urn, w.fields.aspect, w.fields.sent]), POWERBI_KEYS.map((k) => [k.urn, k.aspect, k.sent]));
    for (const [i, w] of warnings.entries()) assert.match(w.message, new RegExp(`^key aspect ${POWERBI_KEYS[i]!.aspect} sent for `));
  });

  // -------------------------------------------------------------------------------------------------------------
  // Item 8: built-in data platforms

  test('DataHub\'s built-in data platforms are there from the first start, as real entities found when their type is named', async () => {
    const res = await t.graphql(`{ dataPlatform(urn: "urn:li:dataPlatform:glue") { urn name properties { type displayName datasetNameDelimiter logoUrl } } }`);
    assert.deepEqual(res.body, { data: { dataPlatform: { urn: 'urn:li:dataPlatform:glue', name: 'glue',
      properties: { type: 'OTHERS', displayName: 'Glue', datasetNameDelimiter: '.', logoUrl: '/assets/platforms/gluelogo.png' } } }, extensions: {} });
    const found = await t.graphql(`{ searchAcrossEntities(input: {query: "glue", types: [DATA_PLATFORM], start: 0, count: 10}) {
      total searchResults { entity { urn } } } }`);
    assert.deepEqual(found.body.data, { searchAcrossEntities: { total: 1, searchResults: [{ entity: { urn: 'urn:li:dataPlatform:glue' } }] } });
    // As in DataHub, platforms are not among the types a search covers when none is named: no count, no facet.
    const all = await t.graphql(`{ searchAcrossEntities(input: {query: "glue", start: 0, count: 10}) { total facets { field aggregations { value count } } } }`);
    assert.equal(all.body.data.searchAcrossEntities.total, 0, JSON.stringify(all.body));
  });

  // -------------------------------------------------------------------------------------------------------------
  // Item 10: malformed urns

  test('every REST write path refuses a malformed dataset urn with 400 naming it, writing nothing', async () => {
    for (const [urn, why] of MALFORMED) {
      const one = await post('/aspects?action=ingestProposal', { proposal: properties(urn, 'x') });
      assert.deepEqual([one.statusCode, one.json()], [400, refusal(urn, why)]);
      const good = 'urn:li:dataset:(urn:li:dataPlatform:hive,batch_good,PROD)';
      const batch = await post('/aspects?action=ingestProposalBatch', { proposals: [properties(good, 'x'), properties(urn, 'x')] });
      assert.deepEqual([batch.statusCode, batch.json()], [400, refusal(urn, why)]);
      const snapshot = { 'com.linkedin.metadata.snapshot.DatasetSnapshot': { urn, aspects: [{ 'com.linkedin.common.Status': { removed: false } }] } };
      const mce = await post('/entities?action=ingest', { entity: { value: snapshot } });
      assert.deepEqual([mce.statusCode, mce.json()], [400, refusal(urn, why)]);
      const mces = await post('/entities?action=batchIngest', { entities: [{ value: snapshot }] });
      assert.deepEqual([mces.statusCode, mces.json()], [400, refusal(urn, why)]);
      assert.deepEqual(await t.catalog.store.existing([urn, good]), new Set(), 'a batch is one transaction: nothing of it is written');
    }
  });

  test('a stored entity with a malformed urn (written before the check) is left out of searches with one warning', async () => {
    const good = 'urn:li:dataset:(urn:li:dataPlatform:hive,robust_good,PROD)';
    assert.equal((await post('/aspects?action=ingestProposal', { proposal: properties(good, 'robust') })).statusCode, 200);
    warnings.length = 0;
    // As an older build wrote it: straight through the store, then indexed by the change log's consumers.
    const bad = 'urn:li:dataset:(urn:li:dataPlatform:hive,robust_bad)';
    await t.catalog.store.writeAspects([{ urn: bad, entityType: 'dataset', aspect: 'datasetProperties',
      value: { description: 'robust', customProperties: {} }, actor: 'urn:li:corpuser:datahub' }], 10);
    await t.catalog.entities.committed();
    // And an index built by that build holds its document too.
    await t.catalog.store.upsertSearchDocs([{ urn: bad, entityType: 'dataset', name: 'robust bad', text: 'robust', sortName: 'robust_bad',
      removed: false, values: [] }]);
    const query = `{ searchAcrossEntities(input: {query: "robust", types: [DATASET], start: 0, count: 10}) {
      total searchResults { entity { urn ... on Dataset { name } } } } }`;
    for (let i = 0; i < 2; i++) {
      const res = await t.graphql(query);
      assert.deepEqual(res.body, { data: { searchAcrossEntities: { total: 1, searchResults: [{ entity: { urn: good, name: 'robust_good' } }] } },
        extensions: {} });
    }
    assert.deepEqual(warnings.map((w) => w.fields), [{ urn: bad, problem: 'a dataset urn has the form urn:li:dataset:(<platform>,<name>,<origin>)' }]);
    await t.catalog.entities.deleteEntity(bad);
  });
});

forEachEngine('ingestion rules (issue 29) through the CLI', (ctx) => {
  let dir: string;
  let db: { url: string; cleanup: () => Promise<void> };
  let env: Record<string, string>;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-rules-'));
    db = await freshSharedDatabaseUrl(ctx.engine);
    env = { DATABASE_URL: db.url };
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await db.cleanup();
  });

  const open = () => openCatalog({ ...loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }) });

  test('almanac ingest keeps PowerBI\'s disagreeing keys (warning) and refuses each malformed urn alone, naming it', async () => {
    const file = path.join(dir, 'records.json');
    writeFileSync(file, JSON.stringify([...POWERBI_KEYS.map(keyProposal), ...MALFORMED.map(([urn]) => properties(urn, 'x')),
      properties('urn:li:dataset:(urn:li:dataPlatform:hive,cli_good,PROD)', 'kept')]));
    const res = await runCli(['ingest', file], env);
    assert.equal(res.code, 1);
    assert.equal(res.stderr, [
      ...POWERBI_KEYS.map((k) => `almanac: warning: key aspect ${k.aspect} sent for ${k.urn} disagrees with the urn (its ${Object.keys(k.sent).find((f) => (k.sent as any)[f] !== (k.stored as any)[f])}); `
        + `stored the key the urn derives, not the one sent: ${JSON.stringify(k.sent)}`),
      ...MALFORMED.map(([urn, why], i) => `refused: ${file} record ${POWERBI_KEYS.length + i} (${urn}): Invalid urn: '${urn}' is not a valid dataset urn: ${why}`),
    ].map((l) => `${l}\n`).join(''));
    assert.equal(res.stdout.replace(/ in \d+ ms:/, ' in N ms:'), 'Ingested 4 of 8 records from 1 file (0 MCE, 8 MCP) in N ms: 5 aspect versions written '
      + "(new entities' key aspects included), 0 unchanged, 0 time-series rows; refused, each named on stderr with its reason: 4 records refused by validation\n");
    const catalog = await open();
    try {
      for (const k of POWERBI_KEYS) assert.deepEqual((await catalog.entities.getAspect(k.urn, k.aspect)).value, k.stored);
      assert.deepEqual(await catalog.store.existing(MALFORMED.map(([urn]) => urn)), new Set());
    } finally {
      await catalog.close();
    }
  });

  test('almanac doctor lists stored entities with a malformed urn and how to delete them; --delete-invalid deletes them', async () => {
    const clean = await runCli(['doctor'], env);
    assert.deepEqual([clean.code, clean.stdout, clean.stderr], [0, '', 'No stored entity has an invalid urn.\n']);
    const catalog = await open();
    try {
      await catalog.store.writeAspects(MALFORMED.map(([urn]) => ({ urn, entityType: 'dataset', aspect: 'status', value: { removed: false },
        actor: 'urn:li:corpuser:datahub' })), 10);
      // Indexed here (left out, with a warning each, to this process's log) rather than by the next command that opens the catalog.
      const left: unknown[] = [];
      catalog.search.warn = (_m, fields) => left.push(fields.urn);
      await catalog.entities.committed();
      await catalog.changeLog.catchUpIndexes(); // the indexes apply a write after it answers: here, now
      assert.deepEqual(left.sort(), MALFORMED.map(([urn]) => urn).sort());
    } finally {
      await catalog.close();
    }
    const found = await runCli(['doctor'], env);
    const sorted = [...MALFORMED].sort(([a], [b]) => (a < b ? -1 : 1));
    assert.equal(found.code, 1);
    assert.deepEqual(found.stdout.split('\n').filter(Boolean).sort(), sorted.map(([urn, why]) => `${urn}\tdataset\t${why}`).sort());
    assert.equal(found.stderr, '4 stored entities have an invalid urn: searches and lists leave them out. Delete them with '
      + '`almanac doctor --delete-invalid`, or one by one with POST /entities?action=delete {"urn": "<urn>"} '
      + '(DataHub\'s `datahub delete --urn <urn> --hard`).\n');
    const deleted = await runCli(['doctor', '--delete-invalid'], env);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.deepEqual(deleted.stdout.split('\n').filter(Boolean).sort(), sorted.map(([urn]) => `deleted ${urn}`).sort());
    assert.equal(deleted.stderr, 'Deleted 4 entities with an invalid urn.\n');
    const after = await runCli(['doctor'], env);
    assert.deepEqual([after.code, after.stderr], [0, 'No stored entity has an invalid urn.\n']);
  });

  test('a platform a connector described keeps its description on later starts; nothing is seeded twice', async () => {
    let catalog = await open();
    try {
      await catalog.entities.ingest([{ urn: 'urn:li:dataPlatform:glue', entityType: 'dataPlatform', aspect: 'dataPlatformInfo', changeType: 'UPSERT',
        systemMetadata: null, value: { name: 'glue', displayName: 'AWS Glue (ours)', type: 'OTHERS', datasetNameDelimiter: '/' } }],
      rootActor());
    } finally {
      await catalog.close();
    }
    catalog = await open();
    try {
      assert.deepEqual(catalog.seededPlatforms, []);
      assert.deepEqual((await catalog.entities.getAspect('urn:li:dataPlatform:glue', 'dataPlatformInfo')).value,
        { name: 'glue', displayName: 'AWS Glue (ours)', type: 'OTHERS', datasetNameDelimiter: '/' });
    } finally {
      await catalog.close();
    }
  });
});
