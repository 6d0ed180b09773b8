import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { systemActor } from '../src/model/actor.js';
import type { ChangeItem } from '../src/services/ingest-format.js';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';
import { webappText } from './support/webapp.js';

/**
 * Domains, the business glossary and data products as DataHub 0.12.1's web app reads and changes them, with its own
 * operations (domain.graphql, glossary*.graphql, dataProduct.graphql, search.graphql) and the variables it sends,
 * over datasets ingested for the purpose. Expected values come from the fixture described here.
 */

const ROOT = 'urn:li:corpuser:datahub';
const hive = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const kafka = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:kafka,${name},PROD)`;
const D1 = hive('orders');
const D2 = kafka('clicks');
const D3 = hive('refunds'); // soft-deleted: no count may include it
const D4 = hive('users');
const FINANCE = 'urn:li:domain:finance';
const AP = 'urn:li:domain:ap';
const AP_M = 'urn:li:domain:ap-m';
const N1 = 'urn:li:glossaryNode:n1';
const N2 = 'urn:li:glossaryNode:n2';
const T1 = 'urn:li:glossaryTerm:t1';
const T2 = 'urn:li:glossaryTerm:t2';
const T3 = 'urn:li:glossaryTerm:t3';
const T4 = 'urn:li:glossaryTerm:t4';

const item = (urn: string, aspect: string, value: unknown): ChangeItem =>
  ({ urn, entityType: 'dataset', aspect, changeType: 'UPSERT', value, systemMetadata: null });
const dataset = (urn: string, name: string, removed = false) => [item(urn, 'datasetProperties', { name, customProperties: {} }),
  item(urn, 'status', { removed })];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Replaces every `lastModified: { time }` (the ownership fragment's: the moment of a write) by 'T', after checking it is a time of this run. */
function timesOut(v: unknown, since: number): unknown {
  if (Array.isArray(v)) return v.map((x) => timesOut(x, since));
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => {
    if (k === 'lastModified' && x && typeof x === 'object' && Object.keys(x).join() === 'time' && typeof (x as { time?: unknown }).time === 'number') {
      assert.ok((x as { time: number }).time >= since && (x as { time: number }).time <= Date.now(), `a time of this run: ${JSON.stringify(x)}`);
      return [k, { time: 'T' }];
    }
    return [k, timesOut(x, since)];
  }));
}

forEachEngine('web app: domains, glossary and data products', (ctx) => {
  let t: TestApp;
  const since = Date.now();
  /** The root user and the technical-owner type as the ownership fragment shows them (their own pages' data). */
  let rootOwner: unknown;
  let technicalOwner: unknown;
  let bob: { headers: Record<string, string> };

  before(async () => {
    t = await startApp(ctx);
    await t.catalog.entities.ingest([{ urn: ROOT, entityType: 'corpuser', aspect: 'corpUserInfo', changeType: 'UPSERT', systemMetadata: null,
      value: { active: true, displayName: 'DataHub', email: 'datahub@example.com' } }], systemActor());
    await t.catalog.entities.ingest([...dataset(D1, 'orders'), ...dataset(D2, 'clicks'), ...dataset(D3, 'refunds', true), ...dataset(D4, 'users')],
      systemActor());
    const who = await ok(`{ corpUser(urn: "${ROOT}") { urn type username info { active displayName title email firstName lastName fullName }
      properties { active displayName title email firstName lastName fullName } editableProperties { displayName title pictureLink email } }
      ownershipType: entity(urn: "urn:li:ownershipType:__system__technical_owner") { ... on OwnershipTypeEntity { urn type info { name description }
        status { removed } } } }`);
    rootOwner = who.corpUser;
    technicalOwner = who.ownershipType;
    bob = { headers: { authorization: `Bearer ${await t.tokenFor('bob')}` } };
  });
  after(async () => t.close());

  async function ok(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
    const res = await t.graphql(query, variables, headers);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return timesOut(res.body.data, since) as any;
  }
  /** A web-app operation (by name; the file when the name is in several) with its variables. */
  const op = (name: string, variables?: Record<string, unknown>, headers?: Record<string, string>, file?: string) =>
    ok(webappText(name, file), variables, headers);
  /** The operation's first error: code and message. */
  async function fails(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
    const res = await t.graphql(query, variables, headers);
    assert.ok(res.body.errors?.length, `expected an error: ${JSON.stringify(res.body)}`);
    return { code: res.body.errors[0].extensions?.code, message: res.body.errors[0].message };
  }
  const ownedByRoot = (urn: string) => ({ owners: [{ owner: rootOwner, type: 'TECHNICAL_OWNER', ownershipType: technicalOwner, associatedUrn: urn }],
    lastModified: { time: 'T' } });
  const createDomain = (input: Record<string, unknown>, headers?: Record<string, string>) =>
    op('createDomain', { input }, headers, 'domain.graphql');

  test('domains: created under a parent with unique names, listed per parent newest first, moved and deleted', async () => {
    assert.deepEqual(await createDomain({ id: 'finance', name: 'Finance', description: 'Money in and out' }), { createDomain: FINANCE });
    await sleep(5);
    const marketing = (await createDomain({ name: 'Marketing' })).createDomain as string;
    assert.match(marketing, /^urn:li:domain:[0-9a-f-]{36}$/);
    await sleep(5);
    assert.deepEqual(await createDomain({ id: 'ap', name: 'AP', parentDomain: FINANCE }), { createDomain: AP });
    // 0.12.1's rule: one name once under one parent; the same name under another parent is fine.
    assert.deepEqual(await fails(webappText('createDomain', 'domain.graphql'), { input: { id: 'ap2', name: 'AP', parentDomain: FINANCE } }),
      { code: 409, message: '"AP" already exists in this domain. Please pick a unique name.' });
    assert.deepEqual(await fails(webappText('createDomain', 'domain.graphql'), { input: { id: 'fin2', name: 'Finance' } }),
      { code: 409, message: '"Finance" already exists in this domain. Please pick a unique name.' });
    assert.deepEqual(await createDomain({ id: 'ap-m', name: 'AP', parentDomain: marketing }), { createDomain: AP_M });
    assert.equal((await fails(webappText('createDomain', 'domain.graphql'), { input: { id: 'finance', name: 'Other' } })).code, 409);
    assert.equal((await fails(webappText('createDomain', 'domain.graphql'), { input: { id: 'x', name: 'X', parentDomain: 'urn:li:domain:nope' } })).code, 404);
    assert.equal((await ok('{ entityExists(urn: "urn:li:domain:x") }')).entityExists, false);

    for (const [u, d] of [[D1, FINANCE], [D2, FINANCE], [D3, FINANCE], [D4, marketing]] as const) {
      await ok(`mutation { setDomain(entityUrn: "${u}", domainUrn: "${d}") }`);
    }
    const financeOut = { urn: FINANCE, id: 'finance', type: 'DOMAIN', properties: { name: 'Finance', description: 'Money in and out' } };
    const marketingOut = { urn: marketing, id: marketing.slice('urn:li:domain:'.length), type: 'DOMAIN', properties: { name: 'Marketing', description: null } };
    const listed = (d: { urn: string; id: string; type: string; properties: unknown }, parents: unknown[], entities: number, children: number) =>
      ({ ...d, parentDomains: { count: parents.length, domains: parents }, ownership: ownedByRoot(d.urn), entities: { total: entities },
        dataProducts: { total: 0 }, children: { total: children } });
    const parentOut = (d: { urn: string; properties: unknown }) => ({ urn: d.urn, type: 'DOMAIN', properties: d.properties });

    // The top level, newest first (DataHub sorts by creation time); D3 is soft-deleted and not counted.
    assert.deepEqual(await op('listDomains', { input: { start: 0, count: 1000 } }), { listDomains: { start: 0, count: 2, total: 2,
      domains: [listed(marketingOut, [], 1, 1), listed(financeOut, [], 2, 1)] } });
    assert.deepEqual(await op('listDomains', { input: { start: 0, count: 1000, parentDomain: FINANCE } }), { listDomains: { start: 0, count: 1, total: 1,
      domains: [listed({ urn: AP, id: 'ap', type: 'DOMAIN', properties: { name: 'AP', description: null } }, [parentOut(financeOut)], 0, 0)] } });
    assert.deepEqual(await op('listDomains', { input: { start: 1, count: 1 } }), { listDomains: { start: 1, count: 1, total: 2,
      domains: [listed(financeOut, [], 2, 1)] } });
    const names = async (input: Record<string, unknown>) => (await ok('query($input: ListDomainsInput!) { listDomains(input: $input) { total domains { urn } } }',
      { input })).listDomains;
    assert.deepEqual(await names({ query: 'fin' }), { total: 1, domains: [{ urn: FINANCE }] });

    // The domain page.
    assert.deepEqual(await op('getDomain', { urn: AP }), { domain: { urn: AP, id: 'ap', type: 'DOMAIN', properties: { name: 'AP', description: null },
      parentDomains: { count: 1, domains: [parentOut(financeOut)] }, ownership: ownedByRoot(AP), institutionalMemory: null, children: { total: 0 } } });
    assert.deepEqual(await op('getDomainChildrenCount', { urn: FINANCE }), { domain: { urn: FINANCE, type: 'DOMAIN', children: { total: 1 } } });

    // Moves: not next to a domain of the same name, not under itself; to the top level and back.
    assert.deepEqual(await fails(webappText('moveDomain'), { input: { resourceUrn: AP, parentDomain: marketing } }),
      { code: 409, message: '"AP" already exists in the destination domain. Please pick a unique name.' });
    assert.deepEqual(await op('moveDomain', { input: { resourceUrn: AP } }), { moveDomain: true });
    assert.deepEqual(await names({ start: 0, count: 10 }), { total: 3, domains: [{ urn: AP }, { urn: marketing }, { urn: FINANCE }] });
    assert.deepEqual(await names({ parentDomain: FINANCE }), { total: 0, domains: [] });
    assert.deepEqual(await op('moveDomain', { input: { resourceUrn: AP, parentDomain: FINANCE } }), { moveDomain: true });
    assert.equal((await fails(webappText('moveDomain'), { input: { resourceUrn: FINANCE, parentDomain: AP } })).code, 400);
    assert.equal((await fails(webappText('moveDomain'), { input: { resourceUrn: D1, parentDomain: AP } })).code, 400);
    assert.equal((await fails(webappText('moveDomain'), { input: { resourceUrn: 'urn:li:domain:nope' } })).code, 404);
    assert.deepEqual(await names({ parentDomain: FINANCE }), { total: 1, domains: [{ urn: AP }] });

    // Deletion: refused while the domain has child domains (0.12.1); the entities in it leave it.
    const del = await fails(webappText('deleteDomain'), { urn: FINANCE });
    assert.deepEqual(del, { code: 400, message: `Cannot delete domain ${FINANCE} which has child domains` });
    assert.deepEqual(await op('deleteDomain', { urn: AP }), { deleteDomain: true });
    await createDomain({ id: 'spare', name: 'Spare' });
    await ok(`mutation { setDomain(entityUrn: "${D1}", domainUrn: "urn:li:domain:spare") }`);
    assert.deepEqual(await op('deleteDomain', { urn: 'urn:li:domain:spare' }), { deleteDomain: true });
    assert.deepEqual(await ok(`{ dataset(urn: "${D1}") { domain { domain { urn } } } }`), { dataset: { domain: null } });
    assert.deepEqual(await names({}), { total: 2, domains: [{ urn: marketing }, { urn: FINANCE }] });
    assert.equal((await fails(webappText('deleteDomain'), { urn: 'urn:li:domain:spare' })).code, 404);
    // Put D1 back for the tests below.
    await ok(`mutation { setDomain(entityUrn: "${D1}", domainUrn: "${FINANCE}") }`);
  });

  test('Domain.entities: a search over the domain\'s entities with its query, filters, paging and facets', async () => {
    const q = `query($input: DomainEntitiesInput) { domain(urn: "${FINANCE}") { entities(input: $input) { start count total
      searchResults { entity { urn } } facets { field displayName aggregations { value count entity { urn } } } } } }`;
    const hiveUrn = 'urn:li:dataPlatform:hive';
    const kafkaUrn = 'urn:li:dataPlatform:kafka';
    const facets = (platforms: [string, number][], n: number) => [
      { field: '_entityType', displayName: 'Type', aggregations: [{ value: 'DATASET', count: n, entity: null }] },
      { field: 'entity', displayName: 'Type', aggregations: [{ value: 'DATASET', count: n, entity: null }] },
      { field: 'platform', displayName: 'Platform', aggregations: platforms.map(([p, c]) => ({ value: p, count: c, entity: { urn: p } })) },
      { field: 'origin', displayName: 'Environment', aggregations: [{ value: 'PROD', count: n, entity: null }] },
      { field: 'domains', displayName: 'Domain', aggregations: [{ value: FINANCE, count: n, entity: { urn: FINANCE } }] },
    ];
    assert.deepEqual(await ok(q), { domain: { entities: { start: 0, count: 2, total: 2, searchResults: [{ entity: { urn: D2 } }, { entity: { urn: D1 } }],
      facets: facets([[hiveUrn, 1], [kafkaUrn, 1]], 2) } } });
    // A facet's own filter does not narrow its own counts; the rest are narrowed.
    assert.deepEqual(await ok(q, { input: { filters: [{ field: 'platform', value: kafkaUrn }] } }), { domain: { entities: { start: 0, count: 1, total: 1,
      searchResults: [{ entity: { urn: D2 } }], facets: facets([[hiveUrn, 1], [kafkaUrn, 1]], 1) } } });
    assert.deepEqual((await ok(q, { input: { query: 'orders' } })).domain.entities.searchResults, [{ entity: { urn: D1 } }]);
    assert.deepEqual((await ok(q, { input: { start: 1, count: 1 } })).domain.entities, { start: 1, count: 1, total: 2,
      searchResults: [{ entity: { urn: D1 } }], facets: facets([[hiveUrn, 1], [kafkaUrn, 1]], 2) });
  });

  test('glossary: nodes and terms created, listed from the root, related, moved and deleted', async () => {
    const create = (kind: 'Term' | 'Node', input: Record<string, unknown>) => op(`createGlossary${kind}`, { input });
    assert.deepEqual(await create('Node', { id: 'n1', name: 'Clients', description: 'About clients' }), { createGlossaryNode: N1 });
    assert.deepEqual(await create('Node', { id: 'n2', name: 'Accounts', parentNode: N1 }), { createGlossaryNode: N2 });
    assert.deepEqual(await create('Term', { id: 't1', name: 'Balance', description: 'What is in it', parentNode: N2 }), { createGlossaryTerm: T1 });
    assert.deepEqual(await create('Term', { id: 't2', name: 'Customer' }), { createGlossaryTerm: T2 });
    assert.deepEqual(await create('Term', { id: 't3', name: 'Saving' }), { createGlossaryTerm: T3 });
    // A term's name is unique at its level of the glossary (0.12.1); the same name in a node is fine.
    assert.deepEqual(await fails(webappText('createGlossaryTerm'), { input: { id: 'tx', name: 'Customer' } }),
      { code: 409, message: 'Glossary Term with this name already exists at this level of the Business Glossary' });
    assert.deepEqual(await create('Term', { id: 't4', name: 'Customer', parentNode: N1 }), { createGlossaryTerm: T4 });
    assert.equal((await fails(webappText('createGlossaryTerm'), { input: { id: 't1', name: 'Again' } })).code, 409);
    assert.equal((await fails(webappText('createGlossaryNode'), { input: { id: 'n9', name: 'N', parentNode: 'urn:li:glossaryNode:nope' } })).code, 404);

    const termOut = (urn: string, name: string) => ({ urn, type: 'GLOSSARY_TERM', name, hierarchicalName: urn.split(':').pop(), properties: { name } });
    const nodeOut = (urn: string, name: string, children: number) => ({ urn, type: 'GLOSSARY_NODE', properties: { name }, children: { total: children } });
    assert.deepEqual(await op('getRootGlossaryTerms'), { getRootGlossaryTerms: { count: 2, start: 0, total: 2,
      terms: [termOut(T2, 'Customer'), termOut(T3, 'Saving')] } });
    assert.deepEqual(await op('getRootGlossaryNodes'), { getRootGlossaryNodes: { count: 1, start: 0, total: 1, nodes: [nodeOut(N1, 'Clients', 2)] } });

    // The node page: its children (nodes and terms), parents and what the caller may do.
    const node = await op('getGlossaryNode', { urn: N2 });
    assert.deepEqual(node, { glossaryNode: { urn: N2, type: 'GLOSSARY_NODE', exists: true, properties: { name: 'Accounts', description: '' },
      ownership: ownedByRoot(N2), parentNodes: { count: 1, nodes: [{ urn: N1, type: 'GLOSSARY_NODE', properties: { name: 'Clients' } }] },
      privileges: { canManageEntity: true, canManageChildren: true },
      children: { total: 1, relationships: [{ direction: 'INCOMING', entity: termOut(T1, 'Balance') }] } } });

    // Related terms: isA and hasA, never with itself, only with terms that exist.
    assert.deepEqual(await op('addRelatedTerms', { input: { urn: T3, termUrns: [T2], relationshipType: 'isA' } }), { addRelatedTerms: true });
    assert.deepEqual(await op('addRelatedTerms', { input: { urn: T3, termUrns: [T1, T1], relationshipType: 'hasA' } }), { addRelatedTerms: true });
    assert.deepEqual(await op('addRelatedTerms', { input: { urn: T3, termUrns: [T1], relationshipType: 'hasA' } }), { addRelatedTerms: true });
    assert.equal((await fails(webappText('addRelatedTerms'), { input: { urn: T3, termUrns: [T3], relationshipType: 'isA' } })).code, 400);
    assert.equal((await fails(webappText('addRelatedTerms'), { input: { urn: T3, termUrns: ['urn:li:glossaryTerm:nope'], relationshipType: 'isA' } })).code, 404);
    assert.equal((await fails(webappText('addRelatedTerms'), { input: { urn: T3, termUrns: [N1], relationshipType: 'isA' } })).code, 400);
    const rel = (urns: string[], extra?: (u: string) => Record<string, unknown>) => ({ start: 0, count: urns.length, total: urns.length,
      relationships: urns.map((u) => ({ entity: { urn: u, ...extra?.(u) } })) });
    const term = (urn: string) => op('getGlossaryTerm', { urn, start: 0, count: 10 });
    assert.deepEqual(await term(T3), { glossaryTerm: { urn: T3, type: 'GLOSSARY_TERM', exists: true, name: 'Saving', hierarchicalName: 't3',
      isRelatedTerms: rel([T2]), hasRelatedTerms: rel([T1]), isAChildren: rel([]), containedBy: rel([]), parentNodes: { count: 0, nodes: [] },
      ownership: ownedByRoot(T3), domain: null, institutionalMemory: null,
      properties: { name: 'Saving', description: '', termSource: 'INTERNAL', sourceRef: null, sourceUrl: null, rawSchema: null, customProperties: null },
      schemaMetadata: null, deprecation: null, privileges: { canManageEntity: true } } });
    const t1 = (await term(T1)).glossaryTerm;
    assert.deepEqual([t1.containedBy, t1.parentNodes, t1.properties.description], [rel([T3]),
      { count: 2, nodes: [{ urn: N2, type: 'GLOSSARY_NODE', properties: { name: 'Accounts' } }, { urn: N1, type: 'GLOSSARY_NODE', properties: { name: 'Clients' } }] },
      'What is in it']);
    assert.deepEqual((await term(T2)).glossaryTerm.isAChildren, rel([T3], () => ({ hierarchicalName: 't3' })));
    assert.deepEqual(await op('removeRelatedTerms', { input: { urn: T3, termUrns: [T2], relationshipType: 'isA' } }), { removeRelatedTerms: true });
    assert.deepEqual([(await term(T3)).glossaryTerm.isRelatedTerms, (await term(T2)).glossaryTerm.isAChildren], [rel([]), rel([])]);

    // Moves: a term into a node and back out; a node never under itself or a node below it.
    assert.deepEqual(await op('updateParentNode', { input: { resourceUrn: T3, parentNode: N2 } }), { updateParentNode: true });
    assert.deepEqual((await op('getRootGlossaryTerms')).getRootGlossaryTerms.terms, [termOut(T2, 'Customer')]);
    assert.deepEqual((await op('getGlossaryNode', { urn: N2 })).glossaryNode.children.total, 2);
    assert.equal((await fails(webappText('updateParentNode'), { input: { resourceUrn: N1, parentNode: N2 } })).code, 400);
    assert.equal((await fails(webappText('updateParentNode'), { input: { resourceUrn: T3, parentNode: T2 } })).code, 400);
    assert.deepEqual(await op('updateParentNode', { input: { resourceUrn: N2 } }), { updateParentNode: true });
    assert.deepEqual((await op('getRootGlossaryNodes')).getRootGlossaryNodes.nodes, [nodeOut(N2, 'Accounts', 2), nodeOut(N1, 'Clients', 1)]);

    // Deleting a term takes it off the entities it labels and out of other terms' relations.
    await ok(`mutation { addTerms(input: { termUrns: ["${T2}", "${T1}"], resourceUrn: "${D1}" }) }`);
    await op('addRelatedTerms', { input: { urn: T3, termUrns: [T2], relationshipType: 'isA' } });
    assert.deepEqual(await op('deleteGlossaryEntity', { urn: T2 }), { deleteGlossaryEntity: true });
    assert.deepEqual(await ok(`{ dataset(urn: "${D1}") { glossaryTerms { terms { term { urn } } } } }`),
      { dataset: { glossaryTerms: { terms: [{ term: { urn: T1 } }] } } });
    assert.deepEqual((await term(T3)).glossaryTerm.isRelatedTerms, rel([]));
    assert.deepEqual(await op('getRootGlossaryTerms'), { getRootGlossaryTerms: { count: 0, start: 0, total: 0, terms: [] } });
    assert.equal((await fails(webappText('deleteGlossaryEntity'), { urn: T2 })).code, 404);
    // Deleting a node moves what it held to the top level.
    await create('Node', { id: 'n3', name: 'Scratch' });
    await create('Term', { id: 't5', name: 'Draft', parentNode: 'urn:li:glossaryNode:n3' });
    assert.deepEqual(await op('deleteGlossaryEntity', { urn: 'urn:li:glossaryNode:n3' }), { deleteGlossaryEntity: true });
    assert.deepEqual(await op('getRootGlossaryTerms'), { getRootGlossaryTerms: { count: 1, start: 0, total: 1,
      terms: [termOut('urn:li:glossaryTerm:t5', 'Draft')] } });
    assert.deepEqual(await op('deleteGlossaryEntity', { urn: 'urn:li:glossaryTerm:t5' }), { deleteGlossaryEntity: true });
  });

  test('data products: created in a domain, renamed, given assets (one product each), searched with facets, deleted', async () => {
    const created = await op('createDataProduct', { input: { domainUrn: FINANCE, properties: { name: 'Revenue', description: 'Sales figures' } } });
    const p1 = created.createDataProduct.urn as string;
    assert.match(p1, /^urn:li:dataProduct:[0-9a-f-]{36}$/);
    const domainOut = await ok(`{ dataProduct(urn: "${p1}") { domain { domain { urn } } } }`);
    assert.deepEqual(domainOut, { dataProduct: { domain: { domain: { urn: FINANCE } } } });
    const dpDomain = (await op('listDomains', { input: { start: 0, count: 10 } })).listDomains.domains.find((d: { urn: string }) => d.urn === FINANCE);
    const searchFields = (urn: string, name: string, description: string | null, assets: number) => ({ urn, type: 'DATA_PRODUCT',
      properties: { name, description, externalUrl: null }, ownership: null, tags: null, glossaryTerms: null,
      domain: { domain: { urn: FINANCE, type: 'DOMAIN', properties: dpDomain.properties, parentDomains: dpDomain.parentDomains, entities: dpDomain.entities,
        dataProducts: dpDomain.dataProducts, children: dpDomain.children }, associatedUrn: urn }, entities: { total: assets } });
    assert.deepEqual(dpDomain.dataProducts, { total: 1 });
    assert.deepEqual(created, { createDataProduct: searchFields(p1, 'Revenue', 'Sales figures', 0) });
    assert.equal((await fails(webappText('createDataProduct'), { input: { domainUrn: 'urn:li:domain:nope', properties: { name: 'X' } } })).code, 404);

    assert.deepEqual(await op('updateDataProduct', { urn: p1, input: { name: 'Revenue 2' } }),
      { updateDataProduct: searchFields(p1, 'Revenue 2', 'Sales figures', 0) });
    assert.equal((await fails(webappText('updateDataProduct'), { urn: 'urn:li:dataProduct:nope', input: { name: 'X' } })).code, 404);

    assert.deepEqual(await op('batchSetDataProduct', { input: { dataProductUrn: p1, resourceUrns: [D1, D2, D4] } }), { batchSetDataProduct: true });
    const p2 = (await op('createDataProduct', { input: { domainUrn: FINANCE, properties: { name: 'Traffic' } } })).createDataProduct.urn as string;
    // An asset is in one product at most: D2 leaves p1 for p2.
    assert.deepEqual(await op('batchSetDataProduct', { input: { dataProductUrn: p2, resourceUrns: [D2] } }), { batchSetDataProduct: true });
    const assets = async (urn: string, input: Record<string, unknown> = {}) => (await ok(`query($input: SearchAcrossEntitiesInput) {
      dataProduct(urn: "${urn}") { properties { numAssets } entities(input: $input) { start count total searchResults { entity { urn } }
        facets { field aggregations { value count } } } } }`, { input: { query: '*', ...input } })).dataProduct;
    const hiveUrn = 'urn:li:dataPlatform:hive';
    const kafkaUrn = 'urn:li:dataPlatform:kafka';
    // D1 is labelled with T1 (the glossary test).
    const facets = (platforms: [string, number][], domains: [string, number][], n: number, terms: [string, number][] = []) => [
      { field: '_entityType', aggregations: [{ value: 'DATASET', count: n }] },
      { field: 'entity', aggregations: [{ value: 'DATASET', count: n }] },
      { field: 'platform', aggregations: platforms.map(([value, count]) => ({ value, count })) },
      { field: 'origin', aggregations: [{ value: 'PROD', count: n }] },
      ...(terms.length ? [{ field: 'glossaryTerms', aggregations: terms.map(([value, count]) => ({ value, count })) }] : []),
      // Equal counts are ordered by value (the random urn of marketing may sort either side of finance).
      ...(domains.length ? [{ field: 'domains', aggregations: [...domains].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .map(([value, count]) => ({ value, count })) }] : []),
    ];
    const marketing = (await ok('{ listDomains(input: { query: "marketing" }) { domains { urn } } }')).listDomains.domains[0].urn as string;
    assert.deepEqual(await assets(p1), { properties: { numAssets: 2 }, entities: { start: 0, count: 2, total: 2,
      searchResults: [{ entity: { urn: D1 } }, { entity: { urn: D4 } }], facets: facets([[hiveUrn, 2]], [[FINANCE, 1], [marketing, 1]], 2, [[T1, 1]]) } });
    assert.deepEqual(await assets(p2), { properties: { numAssets: 1 }, entities: { start: 0, count: 1, total: 1,
      searchResults: [{ entity: { urn: D2 } }], facets: facets([[kafkaUrn, 1]], [[FINANCE, 1]], 1) } });
    // Filters and the query apply to the assets only.
    assert.deepEqual((await assets(p1, { orFilters: [{ and: [{ field: 'domains', values: [marketing] }] }] })).entities,
      { start: 0, count: 1, total: 1, searchResults: [{ entity: { urn: D4 } }], facets: facets([[hiveUrn, 1]], [[FINANCE, 1], [marketing, 1]], 1) });
    assert.deepEqual((await assets(p1, { query: 'orders' })).entities.searchResults, [{ entity: { urn: D1 } }]);

    // The web app's own search over the assets (searchResults with every entity's fields).
    const listedAssets = (await op('listDataProductAssets', { urn: p1, input: { query: '*', start: 0, count: 10,
      orFilters: [{ and: [{ field: 'platform', values: [hiveUrn] }] }] } })).listDataProductAssets;
    assert.deepEqual([listedAssets.start, listedAssets.count, listedAssets.total, listedAssets.searchResults.map((r: any) => r.entity.urn),
      listedAssets.facets.map((f: any) => [f.field, f.aggregations.map((a: any) => [a.value, a.count])])],
    [0, 2, 2, [D1, D4], facets([[hiveUrn, 2]], [[FINANCE, 1], [marketing, 1]], 2, [[T1, 1]]).map((f) => [f.field, f.aggregations.map((a) => [a.value, a.count])])]);
    assert.deepEqual(listedAssets.searchResults[0].entity.domain.domain.urn, FINANCE);

    // Out of every product.
    assert.deepEqual(await op('batchSetDataProduct', { input: { resourceUrns: [D4] } }), { batchSetDataProduct: true });
    assert.deepEqual((await assets(p1)).entities.total, 1);
    assert.equal((await fails(webappText('batchSetDataProduct'), { input: { dataProductUrn: p1, resourceUrns: ['urn:li:dataset:(urn:li:dataPlatform:hive,nope,PROD)'] } })).code, 404);
    assert.equal((await fails(webappText('batchSetDataProduct'), { input: { dataProductUrn: 'urn:li:dataProduct:nope', resourceUrns: [D1] } })).code, 404);

    assert.deepEqual(await op('deleteDataProduct', { urn: p2 }), { deleteDataProduct: true });
    assert.equal((await fails(`{ dataProduct(urn: "${p2}") { urn } }`)).code, 404);
    assert.deepEqual((await op('getDataProduct', { urn: p1 })).dataProduct.entities, { total: 1 });
  });

  test('privileges as 0.12.1 checks them: domains, glossary children (direct and all), data products on their domain', async () => {
    const refused = async (query: string, variables?: Record<string, unknown>) => assert.equal((await fails(query, variables, bob.headers)).code, 403);
    await refused(webappText('createDomain', 'domain.graphql'), { input: { id: 'b1', name: 'B1' } });
    await refused(webappText('moveDomain'), { input: { resourceUrn: FINANCE } });
    await refused(webappText('deleteDomain'), { urn: FINANCE });
    await refused(webappText('createGlossaryTerm'), { input: { id: 'b1', name: 'B1' } });
    await refused(webappText('createGlossaryTerm'), { input: { id: 'b1', name: 'B1', parentNode: N1 } });
    await refused(webappText('addRelatedTerms'), { input: { urn: T3, termUrns: [T1], relationshipType: 'isA' } });
    await refused(webappText('createDataProduct'), { input: { domainUrn: FINANCE, properties: { name: 'B' } } });
    await refused(webappText('batchSetDataProduct'), { input: { resourceUrns: [D1] } });
    assert.deepEqual((await op('getGlossaryNode', { urn: N1 }, bob.headers)).glossaryNode.privileges, { canManageEntity: false, canManageChildren: false });

    const grant = (privileges: string[], resources?: { type: string; urn: string }) => ok(`mutation($input: PolicyUpdateInput!) { createPolicy(input: $input) }`,
      { input: { type: resources ? 'METADATA' : 'PLATFORM', name: `bob ${privileges.join(' ')}`, state: 'ACTIVE', privileges,
        ...(resources ? { resources: { type: resources.type, resources: [resources.urn], allResources: false } } : {}),
        actors: { allUsers: false, allGroups: false, resourceOwners: false, users: ['urn:li:corpuser:bob'] } } });

    // MANAGE_GLOSSARY_CHILDREN on N1: its direct children only. (N2 was moved to the top level above; put it back under N1.)
    await op('updateParentNode', { input: { resourceUrn: N2, parentNode: N1 } });
    await grant(['MANAGE_GLOSSARY_CHILDREN'], { type: 'glossaryNode', urn: N1 });
    assert.deepEqual(await op('createGlossaryTerm', { input: { id: 'b1', name: 'B1', parentNode: N1 } }, bob.headers), { createGlossaryTerm: 'urn:li:glossaryTerm:b1' });
    await refused(webappText('createGlossaryTerm'), { input: { id: 'b2', name: 'B2', parentNode: N2 } });
    await refused(webappText('createGlossaryTerm'), { input: { id: 'b2', name: 'B2' } });
    assert.deepEqual((await op('getGlossaryNode', { urn: N1 }, bob.headers)).glossaryNode.privileges, { canManageEntity: false, canManageChildren: true });
    assert.deepEqual((await op('getGlossaryNode', { urn: N2 }, bob.headers)).glossaryNode.privileges, { canManageEntity: true, canManageChildren: false });
    // MANAGE_ALL_GLOSSARY_CHILDREN on N1: everything below it.
    await grant(['MANAGE_ALL_GLOSSARY_CHILDREN'], { type: 'glossaryNode', urn: N1 });
    assert.deepEqual(await op('createGlossaryTerm', { input: { id: 'b2', name: 'B2', parentNode: N2 } }, bob.headers), { createGlossaryTerm: 'urn:li:glossaryTerm:b2' });
    assert.deepEqual(await op('deleteGlossaryEntity', { urn: 'urn:li:glossaryTerm:b2' }, bob.headers), { deleteGlossaryEntity: true });
    await refused(webappText('updateParentNode'), { input: { resourceUrn: 'urn:li:glossaryTerm:b1' } });

    // CREATE_DOMAINS creates (and the creator owns what it creates), but moving needs MANAGE_DOMAINS.
    await grant(['CREATE_DOMAINS']);
    assert.deepEqual(await createDomain({ id: 'b1', name: 'B1' }, bob.headers), { createDomain: 'urn:li:domain:b1' });
    await refused(webappText('moveDomain'), { input: { resourceUrn: 'urn:li:domain:b1', parentDomain: FINANCE } });

    // MANAGE_DATA_PRODUCTS on one domain: products there, not elsewhere.
    await grant(['MANAGE_DATA_PRODUCTS'], { type: 'domain', urn: FINANCE });
    const p = (await op('createDataProduct', { input: { domainUrn: FINANCE, properties: { name: 'Bob\'s' } } }, bob.headers)).createDataProduct.urn;
    await refused(webappText('createDataProduct'), { input: { domainUrn: (await ok('{ listDomains(input: { query: "marketing" }) { domains { urn } } }'))
      .listDomains.domains[0].urn, properties: { name: 'B' } } });
    assert.deepEqual(await op('deleteDataProduct', { urn: p }, bob.headers), { deleteDataProduct: true });
    // EDIT_ENTITY_DATA_PRODUCTS on an asset lets its product be set.
    await grant(['EDIT_ENTITY_DATA_PRODUCTS'], { type: 'dataset', urn: D4 });
    assert.deepEqual(await op('batchSetDataProduct', { input: { resourceUrns: [D4] } }, bob.headers), { batchSetDataProduct: true });
    await refused(webappText('batchSetDataProduct'), { input: { resourceUrns: [D4, D1] } });
  });
});
