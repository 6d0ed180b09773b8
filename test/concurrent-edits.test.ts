import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { rootActor } from '../src/model/actor.js';
import type { Store } from '../src/storage/types.js';
import { forEachEngine, storeFor } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';

/**
 * No lost updates: edits that read an aspect, change it and write it back run one after another per aspect, so
 * many concurrent edits of one aspect all survive. Every request goes over real HTTP with a real token.
 */
const N = 50;
const ROOT = 'urn:li:corpuser:datahub';
const SYSTEM = 'urn:li:corpuser:__datahub_system';
const pad = (i: number) => String(i).padStart(2, '0');
const TAGS = Array.from({ length: N }, (_, i) => `urn:li:tag:c${pad(i)}`);
const USERS = Array.from({ length: N }, (_, i) => `urn:li:corpuser:u${pad(i)}`);
const FIELDS = Array.from({ length: N }, (_, i) => `f${pad(i)}`);
const datasetUrn = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,concurrent_${name},PROD)`;
const enc = encodeURIComponent;
const byKey = (key: string) => (a: any, b: any) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0);

forEachEngine('concurrent edits of one aspect lose nothing', (ctx) => {
  let t: TestApp;
  let origin: string;

  before(async () => {
    t = await startApp(ctx);
    await t.catalog.entities.ingest([
      ...TAGS.map((urn, i) => ({ urn, entityType: 'tag', aspect: 'tagProperties', changeType: 'UPSERT' as const,
        value: { name: `c${pad(i)}` }, systemMetadata: null })),
      ...USERS.map((urn) => ({ urn, entityType: 'corpuser', aspect: 'corpUserInfo', changeType: 'UPSERT' as const,
        value: { active: true }, systemMetadata: null })),
    ], rootActor());
    origin = await t.listen();
  });
  after(async () => t.close());

  /** A dataset with a schema of N columns and nothing else. */
  async function dataset(name: string): Promise<string> {
    const urn = datasetUrn(name);
    await t.catalog.entities.ingest([{ urn, entityType: 'dataset', aspect: 'schemaMetadata', changeType: 'UPSERT', systemMetadata: null,
      value: { schemaName: name, platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', platformSchema: { OtherSchema: { rawSchema: '' } },
        fields: FIELDS.map((fieldPath) => ({ fieldPath, type: { type: { StringType: {} } }, nativeDataType: 'string' })) } }], rootActor());
    return urn;
  }

  const http = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${origin}${path}`, { method, headers: { ...t.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const graphql = (query: string, variables?: Record<string, unknown>) => http('POST', '/api/graphql', { query, variables });
  const patch = (urn: string, aspectName: string, ops: unknown) => http('POST', '/aspects?action=ingestProposal', {
    proposal: { entityType: 'dataset', entityUrn: urn, changeType: 'PATCH', aspectName,
      aspect: { value: JSON.stringify(ops), contentType: 'application/json-patch+json' } } });
  const aspect = (urn: string, name: string) => http('GET', `/aspects/${enc(urn)}?aspect=${name}`);
  /** The stored aspect with its envelope (version 0's write time and writer). */
  const envelope = async (urn: string, name: string) => (await http('GET', `/entitiesV2/${enc(urn)}?aspects=List(${name})`)).body.aspects[name];
  /** How many items each kept version of an aspect holds, latest first. */
  const historySizes = async (urn: string, name: string, list: (v: any) => unknown[]) =>
    (await t.catalog.store.listVersions(urn, name)).map((r) => list(r.value).length);
  const all = <T>(n: number, f: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));

  test(`${N} concurrent addTag calls, each with its own tag, leave all ${N} tags`, async () => {
    const urn = await dataset('add_tag');
    const answers = await all(N, (i) => graphql(`mutation { addTag(input: { tagUrn: "${TAGS[i]}", resourceUrn: "${urn}" }) }`));
    assert.deepEqual(answers, TAGS.map(() => ({ status: 200, body: { data: { addTag: true }, extensions: {} } })));
    const stored = await aspect(urn, 'globalTags');
    stored.body.aspect['com.linkedin.common.GlobalTags'].tags.sort(byKey('tag'));
    assert.deepEqual(stored, { status: 200, body: { version: 0,
      aspect: { 'com.linkedin.common.GlobalTags': { tags: TAGS.map((tag) => ({ tag })) } } } });
    // One after another: every kept version holds one tag more than the one before it (20 versions kept).
    assert.deepEqual(await historySizes(urn, 'globalTags', (v) => v.tags), Array.from({ length: 20 }, (_, i) => N - i));
  });

  test(`${N} concurrent REST PATCHes, each adding its own owner to an absent ownership, leave all ${N} owners`, async () => {
    const urn = await dataset('patch_owner');
    const started = Date.now();
    const answers = await all(N, (i) => patch(urn, 'ownership',
      [{ op: 'add', path: `/owners/${USERS[i]}/DATAOWNER`, value: { owner: USERS[i], type: 'DATAOWNER' } }]));
    assert.deepEqual(answers, USERS.map(() => ({ status: 200, body: { value: urn } })));
    const stored = await aspect(urn, 'ownership');
    const value = stored.body.aspect['com.linkedin.common.Ownership'];
    value.owners.sort(byKey('owner'));
    // The first patch started from DataHub's empty ownership, stamped by the system; later patches keep that stamp.
    const stampTime = value.lastModified?.time;
    assert.ok(stampTime >= started && stampTime <= Date.now(), `lastModified.time ${stampTime}`);
    assert.deepEqual(stored, { status: 200, body: { version: 0, aspect: { 'com.linkedin.common.Ownership': {
      owners: USERS.map((owner) => ({ owner, type: 'DATAOWNER' })), lastModified: { time: stampTime, actor: SYSTEM } } } } });
    assert.deepEqual(await historySizes(urn, 'ownership', (v) => v.owners), Array.from({ length: 20 }, (_, i) => N - i));
  });

  test(`${N} concurrent addOwners calls leave all ${N} owners`, async () => {
    const urn = await dataset('add_owners');
    const started = Date.now();
    const answers = await all(N, (i) => graphql(`mutation { addOwners(input: { resourceUrn: "${urn}",
      owners: [{ ownerUrn: "${USERS[i]}", ownerEntityType: CORP_USER, type: BUSINESS_OWNER }] }) }`));
    assert.deepEqual(answers, USERS.map(() => ({ status: 200, body: { data: { addOwners: true }, extensions: {} } })));
    const stored = await aspect(urn, 'ownership');
    const value = stored.body.aspect['com.linkedin.common.Ownership'];
    value.owners.sort(byKey('owner'));
    const stampTime = value.lastModified?.time;
    assert.ok(stampTime >= started && stampTime <= Date.now(), `lastModified.time ${stampTime}`);
    assert.deepEqual(stored, { status: 200, body: { version: 0, aspect: { 'com.linkedin.common.Ownership': {
      owners: USERS.map((owner) => ({ owner, type: 'BUSINESS_OWNER', typeUrn: 'urn:li:ownershipType:__system__business_owner' })),
      lastModified: { time: stampTime, actor: ROOT } } } } });
  });

  test(`${N} concurrent addLink calls leave all ${N} links`, async () => {
    const urn = await dataset('add_link');
    const started = Date.now();
    const urls = Array.from({ length: N }, (_, i) => `https://wiki.example.com/page/${pad(i)}`);
    const answers = await all(N, (i) => graphql(`mutation { addLink(input: { linkUrl: "${urls[i]}", label: "page ${i}", resourceUrn: "${urn}" }) }`));
    assert.deepEqual(answers, urls.map(() => ({ status: 200, body: { data: { addLink: true }, extensions: {} } })));
    const stored = await aspect(urn, 'institutionalMemory');
    const elements = stored.body.aspect['com.linkedin.common.InstitutionalMemory'].elements.sort(byKey('url'));
    for (const e of elements) assert.ok(e.createStamp.time >= started && e.createStamp.time <= Date.now(), `stamped ${e.createStamp.time}, during the test`);
    assert.deepEqual(stored, { status: 200, body: { version: 0, aspect: { 'com.linkedin.common.InstitutionalMemory': {
      elements: urls.map((url, i) => ({ url, description: `page ${i}`, createStamp: { time: elements[i].createStamp.time, actor: ROOT } })) } } } });
  });

  test(`${N} concurrent batchAddTags calls on two datasets and a column, resources in either order, leave every tag everywhere`, async () => {
    const a = await dataset('batch_a');
    const b = await dataset('batch_b');
    const answers = await all(N, (i) => {
      const resources = [`{ resourceUrn: "${a}" }`, `{ resourceUrn: "${b}", subResource: "f00", subResourceType: DATASET_FIELD }`];
      if (i % 2) resources.reverse();
      return graphql(`mutation { batchAddTags(input: { tagUrns: ["${TAGS[i]}"], resources: [${resources.join(', ')}] }) }`);
    });
    assert.deepEqual(answers, TAGS.map(() => ({ status: 200, body: { data: { batchAddTags: true }, extensions: {} } })));
    const tags = await aspect(a, 'globalTags');
    tags.body.aspect['com.linkedin.common.GlobalTags'].tags.sort(byKey('tag'));
    assert.deepEqual(tags, { status: 200, body: { version: 0,
      aspect: { 'com.linkedin.common.GlobalTags': { tags: TAGS.map((tag) => ({ tag })) } } } });
    const columns = await aspect(b, 'editableSchemaMetadata');
    const esm = columns.body.aspect['com.linkedin.schema.EditableSchemaMetadata'];
    esm.editableSchemaFieldInfo[0]?.globalTags.tags.sort(byKey('tag'));
    assert.deepEqual(columns, { status: 200, body: { version: 0, aspect: { 'com.linkedin.schema.EditableSchemaMetadata': {
      created: esm.created, lastModified: esm.lastModified,
      editableSchemaFieldInfo: [{ fieldPath: 'f00', globalTags: { tags: TAGS.map((tag) => ({ tag })) } }] } } } });
    assert.equal(esm.created.actor, ROOT);
    assert.equal(esm.lastModified.actor, ROOT);
  });

  test(`${N} concurrent updateDescription calls, each on its own column, leave all ${N} descriptions`, async () => {
    const urn = await dataset('column_docs');
    const answers = await all(N, (i) => graphql(`mutation { updateDescription(input: { description: "column ${i}", resourceUrn: "${urn}",
      subResource: "${FIELDS[i]}", subResourceType: DATASET_FIELD }) }`));
    assert.deepEqual(answers, FIELDS.map(() => ({ status: 200, body: { data: { updateDescription: true }, extensions: {} } })));
    const stored = await aspect(urn, 'editableSchemaMetadata');
    const esm = stored.body.aspect['com.linkedin.schema.EditableSchemaMetadata'];
    esm.editableSchemaFieldInfo.sort(byKey('fieldPath'));
    assert.deepEqual(stored, { status: 200, body: { version: 0, aspect: { 'com.linkedin.schema.EditableSchemaMetadata': {
      created: esm.created, lastModified: esm.lastModified,
      editableSchemaFieldInfo: FIELDS.map((fieldPath, i) => ({ fieldPath, description: `column ${i}` })) } } } });
  });

  test('GraphQL addTag and REST tag PATCHes on one dataset, all at once, leave every tag', async () => {
    const urn = await dataset('mixed');
    const answers = await all(N, (i) => (i % 2
      ? graphql(`mutation { addTag(input: { tagUrn: "${TAGS[i]}", resourceUrn: "${urn}" }) }`)
      : patch(urn, 'globalTags', [{ op: 'add', path: `/tags/${TAGS[i]}`, value: { tag: TAGS[i] } }])));
    assert.deepEqual(answers, TAGS.map((_, i) => (i % 2
      ? { status: 200, body: { data: { addTag: true }, extensions: {} } } : { status: 200, body: { value: urn } })));
    const stored = await aspect(urn, 'globalTags');
    stored.body.aspect['com.linkedin.common.GlobalTags'].tags.sort(byKey('tag'));
    assert.deepEqual(stored, { status: 200, body: { version: 0,
      aspect: { 'com.linkedin.common.GlobalTags': { tags: TAGS.map((tag) => ({ tag })) } } } });
  });

  test('a PATCH removing a tag from an absent globalTags stores the empty aspect', async () => {
    const urn = await dataset('remove_absent');
    assert.deepEqual(await patch(urn, 'globalTags', [{ op: 'remove', path: '/tags/urn:li:tag:t' }]), { status: 200, body: { value: urn } });
    assert.deepEqual(await aspect(urn, 'globalTags'),
      { status: 200, body: { version: 0, aspect: { 'com.linkedin.common.GlobalTags': { tags: [] } } } });
  });

  test('a PATCH adding to absent aspects starts from their empty defaults', async () => {
    const urn = await dataset('add_absent');
    assert.deepEqual(await patch(urn, 'glossaryTerms', [{ op: 'add', path: '/terms/urn:li:glossaryTerm:pii', value: { urn: 'urn:li:glossaryTerm:pii' } }]),
      { status: 200, body: { value: urn } });
    const terms = await envelope(urn, 'glossaryTerms');
    assert.deepEqual(terms.value, {
      terms: [{ urn: 'urn:li:glossaryTerm:pii' }], auditStamp: { time: terms.created.time, actor: SYSTEM } });
    assert.equal(terms.created.actor, ROOT);

    assert.deepEqual(await patch(urn, 'editableSchemaMetadata', [{ op: 'add', path: '/editableSchemaFieldInfo/f01/description', value: 'one' }]),
      { status: 200, body: { value: urn } });
    const esm = await envelope(urn, 'editableSchemaMetadata');
    const stamp = { time: esm.created.time, actor: SYSTEM };
    assert.deepEqual(esm.value, {
      created: stamp, lastModified: stamp, editableSchemaFieldInfo: [{ fieldPath: 'f01', description: 'one' }] });

    assert.deepEqual(await patch(urn, 'datasetProperties', [{ op: 'add', path: '/customProperties/team', value: 'data' }]),
      { status: 200, body: { value: urn } });
    assert.deepEqual(await aspect(urn, 'datasetProperties'), { status: 200, body: { version: 0,
      aspect: { 'com.linkedin.dataset.DatasetProperties': { customProperties: { team: 'data' }, tags: [] } } } });
  });

  test('a PATCH of an entity never seen creates it, its key aspect included', async () => {
    const urn = datasetUrn('patched_into_being');
    assert.deepEqual(await patch(urn, 'globalTags', [{ op: 'add', path: `/tags/${TAGS[0]}`, value: { tag: TAGS[0] } }]),
      { status: 200, body: { value: urn } });
    assert.deepEqual(await aspect(urn, 'globalTags'),
      { status: 200, body: { version: 0, aspect: { 'com.linkedin.common.GlobalTags': { tags: [{ tag: TAGS[0] }] } } } });
    assert.deepEqual(await aspect(urn, 'datasetKey'), { status: 200, body: { version: 0,
      aspect: { 'com.linkedin.metadata.key.DatasetKey': { platform: 'urn:li:dataPlatform:hive', name: 'concurrent_patched_into_being', origin: 'PROD' } } } });
  });

  test('an edit of an entity that does not exist is still NOT_FOUND, and a patch to an invalid value still 422, nothing written', async () => {
    const missing = datasetUrn('missing');
    const res = await graphql(`mutation { addTag(input: { tagUrn: "${TAGS[0]}", resourceUrn: "${missing}" }) }`);
    assert.deepEqual(res, { status: 200, body: { errors: [{ message: `Resource ${missing} does not exist`, locations: [{ line: 1, column: 12 }],
      path: ['addTag'], extensions: { code: 404, type: 'NOT_FOUND', classification: 'DataFetchingException' } }], data: { addTag: null }, extensions: {} } });

    const urn = await dataset('invalid_patch');
    const bad = await patch(urn, 'globalTags', [{ op: 'add', path: '/tags/x', value: { tag: 42 } }]);
    assert.equal(bad.status, 422);
    assert.equal(bad.body.message, 'Invalid aspect globalTags: tags[0].tag: expected a urn, got number');
    assert.equal((await aspect(urn, 'globalTags')).status, 404);
  });

  test('20 concurrent createTag and createGroup calls with one id: exactly one creates it, the others get 409', async () => {
    for (const [mutation, urn, what] of [
      ['createTag(input: { id: "raced", name: "Raced" })', 'urn:li:tag:raced', 'Tag'],
      ['createGroup(input: { id: "raced", name: "Raced" })', 'urn:li:corpGroup:raced', 'Group'],
    ] as const) {
      const results = await Promise.all(Array.from({ length: 20 }, () => graphql(`mutation { ${mutation} }`)));
      const created = results.filter((r) => r.body.errors === undefined);
      assert.equal(created.length, 1, JSON.stringify(results.map((r) => r.body)));
      assert.deepEqual(created[0]!.body.data, { [mutation.slice(0, mutation.indexOf('('))]: urn });
      for (const r of results.filter((x) => x.body.errors)) {
        assert.deepEqual([r.body.errors[0].extensions.code, r.body.errors[0].message], [409, `This ${what} already exists: ${urn}`]);
      }
    }
  });
});

forEachEngine('store.updateAspects: read-modify-write under lock', (ctx) => {
  let store: Store;
  before(async () => { store = await storeFor(ctx); });
  after(async () => store.close());

  const URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,counter,PROD)';
  const write = (urn: string, aspect: string, value: unknown) => ({ urn, entityType: 'dataset', aspect, value, actor: ROOT, time: 1 });
  const count = (urn: string) => (current: Map<string, Map<string, any>>) => Number(current.get(urn)?.get('datasetProperties')?.value.customProperties.n ?? 0);

  test('100 concurrent increments of one aspect, starting from nothing, all count', async () => {
    const n = count(URN);
    const results = await Promise.all(Array.from({ length: 100 }, () => store.updateAspects([{ urn: URN, aspect: 'datasetProperties' }],
      (current) => ({ writes: [write(URN, 'datasetProperties', { customProperties: { n: String(n(current) + 1) } })] }), 1000)));
    assert.deepEqual(results, Array.from({ length: 100 }, () => [{ urn: URN, aspect: 'datasetProperties', changed: true }]));
    const versions = await store.listVersions(URN, 'datasetProperties');
    assert.deepEqual(versions.map((v) => [v.version, (v.value as any).customProperties.n]),
      [[0, '100'], ...Array.from({ length: 99 }, (_, i) => [99 - i, String(99 - i)])]);
  });

  test('updates of overlapping aspects named in opposite orders neither deadlock nor lose anything', async () => {
    const A = 'urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)';
    const B = 'urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)';
    const bump = (urns: string[]) => store.updateAspects(urns.map((urn) => ({ urn, aspect: 'datasetProperties' })),
      (current) => ({ writes: urns.map((urn) => write(urn, 'datasetProperties', { customProperties: { n: String(count(urn)(current) + 1) } })) }), 5);
    await Promise.all(Array.from({ length: 40 }, (_, i) => bump(i % 2 ? [A, B] : [B, A])));
    const latest = await store.getLatest([A, B], ['datasetProperties']);
    assert.deepEqual([A, B].map((u) => latest.get(u)?.get('datasetProperties')?.value), [{ customProperties: { n: '40' } }, { customProperties: { n: '40' } }]);
  });

  test('concurrent updates of one aspect leave the versions, log entries and answers that one after another leave', async () => {
    // SQLite makes a group's read-modify-writes as one batch; they must come to what they do one by one (here on other
    // entities): a history cap trimming within the group, a modify that throws, one that writes nothing, a value sent
    // again with new system metadata, an edit of an entity the group creates, a deletion between the others.
    const urnsOf = (run: string) => ({ urn: `urn:li:dataset:(urn:li:dataPlatform:hive,${run},PROD)`,
      other: `urn:li:dataset:(urn:li:dataPlatform:hive,${run}_new,PROD)`, missing: `urn:li:dataset:(urn:li:dataPlatform:hive,${run}_missing,PROD)` });
    const calls = (run: string) => {
      const { urn, other, missing } = urnsOf(run);
      const keys = [{ urn, aspect: 'datasetProperties' }, { urn, aspect: 'globalTags' }];
      const edit = (i: number) => (current: Map<string, Map<string, any>>) => {
        const n = count(urn)(current);
        if (i % 9 === 4) throw new Error(`no ${i}`);
        if (i % 11 === 6) return { writes: [] };
        if (i % 10 === 7) return { writes: [{ ...write(urn, 'datasetProperties', current.get(urn)!.get('datasetProperties')!.value), systemMetadata: { runId: `r${i}` } }] };
        const props = write(urn, 'datasetProperties', { customProperties: { n: String(n + 1) } });
        if (i === 14) return { writes: [props], deletes: [{ urn, aspect: 'globalTags', actor: ROOT }] };
        return { writes: [props, ...(i % 3 === 0 ? [write(urn, 'globalTags', { tags: [{ tag: `urn:li:tag:t${i}` }] })] : [])] };
      };
      return Array.from({ length: 40 }, (_, i) => () => (i % 8 === 5
        ? store.updateAspects([{ urn: other, aspect: 'globalTags' }], (current) => ({ writes: [write(other, 'globalTags',
          { tags: [{ tag: `urn:li:tag:n${i}` }, ...((current.get(other)?.get('globalTags')?.value as any)?.tags ?? [])] })] }), 5, i > 5 ? [other] : [])
        : store.updateAspects(keys, edit(i), 5, i === 2 ? [urn, missing] : i > 0 ? [urn] : [])));
    };
    const settle = (p: Promise<unknown>) => p.then((value) => ({ value }), (e: Error) => ({ error: e.message }));
    /** What a run left, its urns named as the first run's (deletions logged at the time they ran). */
    const state = async (run: string, answers: unknown[]) => {
      const { urn, other } = urnsOf(run);
      const log = (await store.changesAfter(0, 100_000, true)).filter((e) => e.urn === urn || e.urn === other)
        .map(({ seq: _, ...e }) => (e.changeType === 'DELETE' ? { ...e, time: 0 } : e));
      const versions = await Promise.all([[urn, 'datasetProperties'], [urn, 'globalTags'], [other, 'globalTags']].map(([u, a]) => store.listVersions(u!, a!)));
      return JSON.parse(JSON.stringify({ answers, versions, log }).replaceAll(run, 'RUN'));
    };
    const together = await Promise.all(calls('together').map((call) => settle(call())));
    const alone = [];
    for (const call of calls('alone')) alone.push(await settle(call()));
    assert.deepEqual(together.flatMap((r, i) => ('error' in r ? [i] : [])), [2, 4, 22, 31], 'the missing entity and the throwing modifies fail, nothing else');
    assert.deepEqual(await state('together', together), await state('alone', alone));
  });

  test('a modify function that throws writes nothing, and its error comes back', async () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,throws,PROD)';
    await assert.rejects(store.updateAspects([{ urn, aspect: 'globalTags' }], () => { throw new Error('no'); }, 5), { message: 'no' });
    await assert.rejects(store.updateAspects([{ urn, aspect: 'globalTags' }, { urn, aspect: 'ownership' }], () => ({
      writes: [write(urn, 'globalTags', { tags: [] }), write(urn, 'glossaryTerms', { terms: [] })] }), 5),
    { message: `updateAspects: glossaryTerms of ${urn} is written but was not locked` });
    assert.deepEqual([...(await store.existing([urn]))], []);
    assert.deepEqual(await store.getLatest([urn]), new Map());
  });
});
