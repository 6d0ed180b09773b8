import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';
const NOT_OWNED = 'urn:li:dataset:(urn:li:dataPlatform:hive,owned_by_nobody,PROD)';

forEachEngine('tokens, as a new user meets them', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
    await t.catalog.entities.ingest([{ urn: NOT_OWNED, entityType: 'dataset', aspect: 'datasetProperties', changeType: 'UPSERT',
      value: { description: 'nobody owns me' }, systemMetadata: null }], { urn: 'urn:li:corpuser:datahub', kind: 'user' });
  });
  after(async () => t.close());

  const as = (token: string) => ({ authorization: `Bearer ${token}` });

  test('the root user creates a token for a colleague, who reads, edits what they own, and is refused elsewhere; revoking locks them out', async () => {
    const created = await t.graphql(`mutation { createAccessToken(input: { type: PERSONAL, actorUrn: "urn:li:corpuser:jdoe",
      duration: ONE_MONTH, name: "jdoe laptop", description: "for the docs sprint" }) {
      accessToken metadata { id name description actorUrn ownerUrn createdAt expiresAt type } } }`);
    assert.equal(created.body.errors, undefined, JSON.stringify(created.body.errors));
    const { accessToken, metadata } = created.body.data.createAccessToken;
    assert.equal(metadata.name, 'jdoe laptop');
    assert.equal(metadata.description, 'for the docs sprint');
    assert.equal(metadata.actorUrn, 'urn:li:corpuser:jdoe');
    assert.equal(metadata.ownerUrn, 'urn:li:corpuser:datahub');
    assert.equal(metadata.type, 'ACCESS_TOKEN');
    assert.equal(metadata.expiresAt - metadata.createdAt, 30 * 86_400_000);

    const me = await t.graphql('{ me { corpUser { urn } platformPrivileges { manageTokens generatePersonalAccessTokens } } }', undefined, as(accessToken));
    assert.deepEqual(me.body.data.me, { corpUser: { urn: 'urn:li:corpuser:jdoe' }, platformPrivileges: { manageTokens: false, generatePersonalAccessTokens: true } });

    const read = await t.graphql(`{ dataset(urn: "${NOT_OWNED}") { properties { description } privileges { canEditDescription } } }`, undefined, as(accessToken));
    assert.deepEqual(read.body, { data: { dataset: { properties: { description: 'nobody owns me' }, privileges: { canEditDescription: false } } }, extensions: {} });

    const own = await t.graphql(`mutation { updateDataset(urn: "${HDFS}", input: { editableProperties: { description: "jdoe was here" } }) { urn } }`, undefined, as(accessToken));
    assert.deepEqual(own.body, { data: { updateDataset: { urn: HDFS } }, extensions: {} });
    assert.equal((await t.catalog.entities.getAspect(HDFS, 'editableDatasetProperties')).createdBy, 'urn:li:corpuser:jdoe');

    const other = await t.graphql(`mutation { updateDataset(urn: "${NOT_OWNED}", input: { editableProperties: { description: "no" } }) { urn } }`, undefined, as(accessToken));
    assert.equal(other.body.errors[0].extensions.code, 403);
    const tag = await t.graphql('mutation { createTag(input: { id: "jdoes", name: "x" }) }', undefined, as(accessToken));
    assert.equal(tag.body.errors[0].extensions.code, 403);

    const revoke = await t.graphql(`mutation { revokeAccessToken(tokenId: "${metadata.id}") }`);
    assert.deepEqual(revoke.body, { data: { revokeAccessToken: true }, extensions: {} });
    const after = await t.app.inject({ method: 'POST', url: '/api/graphql', headers: as(accessToken), payload: { query: '{ me { corpUser { urn } } }' } });
    assert.equal(after.statusCode, 401);
  });

  test('users list and revoke their own tokens; others\' need MANAGE_ACCESS_TOKENS', async () => {
    const alice = await t.tokenFor('alice');
    const mine = await t.graphql(`mutation { createAccessToken(input: { type: PERSONAL, actorUrn: "urn:li:corpuser:alice", duration: ONE_HOUR, name: "second" }) { metadata { id } } }`,
      undefined, as(alice));
    assert.equal(mine.body.errors, undefined, JSON.stringify(mine.body.errors));
    const list = await t.graphql('{ listAccessTokens(input: { start: 0, count: 10, filters: [{ field: "ownerUrn", values: ["urn:li:corpuser:alice"] }] }) { total tokens { name actorUrn } } }',
      undefined, as(alice));
    // Newest expiry first: the token just made, then the one alice signed in with.
    assert.deepEqual(list.body.data.listAccessTokens, { total: 2, tokens: [{ name: 'second', actorUrn: 'urn:li:corpuser:alice' },
      { name: 'test alice', actorUrn: 'urn:li:corpuser:alice' }] });
    const all = await t.graphql('{ listAccessTokens(input: { start: 0, count: 10 }) { total } }', undefined, as(alice));
    assert.equal(all.body.errors[0].extensions.code, 403);
    const rootsTokens = await t.catalog.tokens.list({ ownerUrn: 'urn:li:corpuser:datahub', start: 0, count: 1 });
    const steal = await t.graphql(`mutation { revokeAccessToken(tokenId: "${rootsTokens.tokens[0]!.id}") }`, undefined, as(alice));
    assert.equal(steal.body.errors[0].extensions.code, 403);
    const selfRevoke = await t.graphql(`mutation { revokeAccessToken(tokenId: "${mine.body.data.createAccessToken.metadata.id}") }`, undefined, as(alice));
    assert.deepEqual(selfRevoke.body.data, { revokeAccessToken: true });
  });

  test('getAccessTokenMetadata describes a token without revealing it', async () => {
    const root = { urn: 'urn:li:corpuser:datahub', kind: 'user' as const };
    const made = await t.catalog.tokens.create({ actorUrn: 'urn:li:corpuser:jdoe', ownerUrn: 'urn:li:corpuser:datahub', name: 'described',
      description: 'for the metadata test', durationMs: 3_600_000 }, root);
    // Every field that holds a value of its own (leaves; `relationships` and `policies` lead to other entities).
    const leaf = (type: any): boolean => (type.kind === 'NON_NULL' || type.kind === 'LIST' ? leaf(type.ofType) : ['SCALAR', 'ENUM'].includes(type.kind));
    const fields = (await t.graphql('{ __type(name: "AccessTokenMetadata") { fields { name type { kind ofType { kind ofType { kind } } } } } }'))
      .body.data.__type.fields.filter((f: any) => leaf(f.type)).map((f: any) => f.name);
    const res = await t.graphql(`{ getAccessTokenMetadata(token: "${made.accessToken}") { ${fields.join(' ')} } }`);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    const got = res.body.data.getAccessTokenMetadata;
    const { metadata } = made;
    assert.deepEqual([got.id, got.name, got.description, got.actorUrn, got.ownerUrn, got.createdAt, got.expiresAt],
      [metadata.id, 'described', 'for the metadata test', 'urn:li:corpuser:jdoe', 'urn:li:corpuser:datahub', metadata.createdAt, metadata.expiresAt]);
    assert.equal(got.expiresAt - got.createdAt, 3_600_000);
    // Every field of the answer, asked for all at once: none holds the token, or its payload or signature.
    const answer = JSON.stringify(res.body);
    const [, payload, signature] = made.accessToken.split('.');
    for (const secret of [made.accessToken, payload!, signature!]) assert.ok(!answer.includes(secret), `the answer reveals ${secret}`);
    assert.ok(!fields.some((f: string) => /token/i.test(f)), `a field that could hold the token: ${fields}`);
  });

  test('tokens that never expire are refused unless configured', async () => {
    const res = await t.graphql('mutation { createAccessToken(input: { type: PERSONAL, actorUrn: "urn:li:corpuser:datahub", duration: NO_EXPIRY, name: "forever" }) { accessToken } }');
    assert.deepEqual([res.body.errors[0].extensions.code, res.body.errors[0].message],
      [400, 'Tokens that never expire are disabled (set ALMANAC_ALLOW_NO_EXPIRY_TOKENS=true to allow them)']);
  });

  test('a suspended user\'s tokens stop working at once', async () => {
    const bob = await t.tokenFor('bob');
    assert.equal((await t.app.inject({ url: '/config', headers: as(bob) })).statusCode, 200);
    await t.catalog.entities.ingest([{ urn: 'urn:li:corpuser:bob', entityType: 'corpuser', aspect: 'corpUserStatus', changeType: 'UPSERT',
      value: { status: 'SUSPENDED', lastModified: { time: Date.now(), actor: 'urn:li:corpuser:datahub' } }, systemMetadata: null },
    ], { urn: 'urn:li:corpuser:datahub', kind: 'user' });
    const res = await t.app.inject({ url: '/config', headers: as(bob) });
    assert.equal(res.statusCode, 401);
    assert.deepEqual(res.json(), { status: 401, code: 'UNAUTHENTICATED', message: "The token's user urn:li:corpuser:bob is suspended." });
  });

  test('the system client authenticates with Basic id:secret when configured', async () => {
    const sys = await startApp(ctx, { systemClientSecret: 'sekret-sekret' });
    try {
      const ok = await sys.app.inject({ url: '/config', headers: { authorization: 'Basic __datahub_system:sekret-sekret' } });
      assert.equal(ok.statusCode, 200);
      const b64 = await sys.app.inject({ url: '/config', headers: { authorization: `Basic ${Buffer.from('__datahub_system:sekret-sekret').toString('base64')}` } });
      assert.equal(b64.statusCode, 200);
      const bad = await sys.app.inject({ url: '/config', headers: { authorization: 'Basic __datahub_system:wrong' } });
      assert.equal(bad.statusCode, 401);
    } finally {
      await sys.close();
    }
  });
});
