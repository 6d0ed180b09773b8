import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/**
 * A deterministic generator of realistic catalogs as DataHub MetadataChangeProposals (the JSON Almanac ingests
 * through `POST /aspects?action=ingestProposal`, `ingestProposalBatch` and `almanac ingest`). The same seed and
 * options always give the same proposals, byte for byte (timestamps come from a fixed epoch, not the clock).
 *
 * What a catalog holds: a few platforms, users, tags and glossary terms; per platform one database container and
 * schema containers under it; datasets with 5–200 columns (types, descriptions, tags and terms on some columns),
 * properties, ownership, tags, terms, lineage to earlier datasets, browse paths, container, subtypes, links, a
 * profile and usage statistics; and a few charts, dashboards, data flows and data jobs over them. Plus one fixed
 * "showcase" dataset of exactly 50 columns carrying the selection the benchmarks read.
 *
 * Exposed as functions (`catalogProposals` streams every proposal; `datasetProposals` those of one dataset) and as
 * a CLI: `npm run bench -- generate --datasets N [--seed S] --out file.json`.
 */

export interface Proposal {
  entityType: string;
  entityUrn: string;
  changeType: 'UPSERT';
  aspectName: string;
  aspect: { value: string; contentType: 'application/json' };
  systemMetadata: { lastObserved: number; runId: string };
}

export interface GenerateOptions {
  /** Generated datasets (the showcase dataset comes in addition). */
  datasets: number;
  seed?: number;
  /** Charts, dashboards, data jobs: one of each per this many datasets (at least one each when datasets > 0). */
  extrasEvery?: number;
}

/** 2026-01-01T00:00:00Z: every generated timestamp counts from here. */
export const EPOCH = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

/** mulberry32: a small, fast, seedable PRNG. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
    chance: (p: number) => next() < p,
    some: <T>(xs: readonly T[], n: number): T[] => {
      const out = new Set<T>();
      while (out.size < Math.min(n, xs.length)) out.add(xs[Math.floor(next() * xs.length)]!);
      return [...out];
    },
  };
}
type Rng = ReturnType<typeof rng>;

export const PLATFORMS = [
  { id: 'snowflake', name: 'Snowflake', type: 'RELATIONAL_DB', subType: 'Table' },
  { id: 'postgres', name: 'PostgreSQL', type: 'RELATIONAL_DB', subType: 'Table' },
  { id: 'bigquery', name: 'BigQuery', type: 'RELATIONAL_DB', subType: 'Table' },
  { id: 'hive', name: 'Hive', type: 'FILE_SYSTEM', subType: 'Table' },
  { id: 'kafka', name: 'Kafka', type: 'MESSAGE_BROKER', subType: 'Topic' },
  { id: 's3', name: 'S3', type: 'FILE_SYSTEM', subType: 'Folder' },
] as const;

const SCHEMAS = ['sales', 'marketing', 'finance', 'ops', 'analytics', 'raw', 'staging', 'core', 'product', 'support'];
const NOUNS = ['orders', 'customers', 'invoices', 'payments', 'sessions', 'events', 'accounts', 'shipments', 'refunds',
  'products', 'campaigns', 'clicks', 'tickets', 'subscriptions', 'inventory', 'suppliers', 'employees', 'leads'];
const QUALIFIERS = ['daily', 'hourly', 'raw', 'clean', 'agg', 'fact', 'dim', 'snapshot', 'history', 'latest'];
const COLUMN_WORDS = ['id', 'customer_id', 'order_id', 'amount', 'currency', 'created_at', 'updated_at', 'status', 'country',
  'email', 'phone', 'name', 'quantity', 'price', 'discount', 'region', 'channel', 'source', 'score', 'is_active', 'category',
  'sku', 'session_id', 'user_agent', 'ip_address', 'referrer', 'latitude', 'longitude', 'tax', 'total', 'notes', 'version'];
const TYPES = [
  { type: 'StringType', native: 'VARCHAR(255)' }, { type: 'NumberType', native: 'BIGINT' },
  { type: 'NumberType', native: 'DECIMAL(18,2)' }, { type: 'BooleanType', native: 'BOOLEAN' },
  { type: 'DateType', native: 'DATE' }, { type: 'TimeType', native: 'TIMESTAMP' }, { type: 'StringType', native: 'TEXT' },
] as const;
const SENTENCES = ['Identifies the record uniquely across all loads.', 'Amount in the currency of the transaction.',
  'Set by the loader when the row was first seen.', 'Customer-facing status, one of a small fixed set.',
  'Two-letter ISO country code of the billing address.', 'Personally identifiable; masked outside the finance team.',
  'Derived nightly from the upstream events.', 'Free text entered by support agents.', 'Null until the order ships.',
  'Foreign key to the customers table.'];
export const TAGS = ['PII', 'Sensitive', 'Gold', 'Deprecated', 'Raw', 'Certified', 'Finance', 'Marketing', 'GDPR', 'Experimental'];
export const TERMS = ['Revenue', 'Customer', 'Order', 'Churn', 'ActiveUser', 'GrossMargin', 'Email', 'Address', 'Country',
  'Invoice', 'Refund', 'Session'];
export const USERS = ['jdoe', 'asmith', 'mgarcia', 'lchen', 'pkumar', 'ewilson', 'tnguyen', 'okim', 'rsilva', 'dbrown'];
const GROUPS = ['data-platform', 'finance-analytics', 'growth'];

export const SHOWCASE_URN = 'urn:li:dataset:(urn:li:dataPlatform:snowflake,showcase.sales.orders,PROD)';
export const SHOWCASE_FIELD = 'order_id';

const tagUrn = (t: string) => `urn:li:tag:${t}`;
const termUrn = (t: string) => `urn:li:glossaryTerm:Business.${t}`;
const userUrn = (u: string) => `urn:li:corpuser:${u}`;
const platformUrn = (p: string) => `urn:li:dataPlatform:${p}`;
const containerUrn = (...parts: string[]) => `urn:li:container:${parts.join('_')}`;
export const datasetUrn = (platform: string, name: string) => `urn:li:dataset:(${platformUrn(platform)},${name},PROD)`;

function mcp(entityType: string, entityUrn: string, aspectName: string, value: unknown): Proposal {
  return { entityType, entityUrn, changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' },
    systemMetadata: { lastObserved: EPOCH, runId: 'almanac-bench-generator' } };
}
const stamp = (t: number, actor = 'urn:li:corpuser:datahub') => ({ time: t, actor });

/** Platforms, users, groups, tags, glossary terms and containers: what datasets refer to. */
export function* referenceProposals(): Generator<Proposal> {
  for (const p of PLATFORMS) {
    yield mcp('dataPlatform', platformUrn(p.id), 'dataPlatformInfo', { name: p.id, displayName: p.name, type: p.type, datasetNameDelimiter: '.' });
  }
  for (const u of USERS) {
    yield mcp('corpuser', userUrn(u), 'corpUserInfo', { active: true, displayName: u.toUpperCase(), fullName: `${u[0]!.toUpperCase()}. ${u.slice(1)}`,
      email: `${u}@example.com`, title: 'Data Engineer' });
  }
  for (const g of GROUPS) yield mcp('corpGroup', `urn:li:corpGroup:${g}`, 'corpGroupInfo', { displayName: g, admins: [], members: [], groups: [] });
  for (const t of TAGS) yield mcp('tag', tagUrn(t), 'tagProperties', { name: t, description: `Marks ${t.toLowerCase()} data.` });
  yield mcp('glossaryNode', 'urn:li:glossaryNode:Business', 'glossaryNodeInfo', { name: 'Business', definition: 'Business vocabulary.' });
  for (const t of TERMS) {
    yield mcp('glossaryTerm', termUrn(t), 'glossaryTermInfo', { name: t, definition: `What the business means by ${t}.`, termSource: 'INTERNAL',
      parentNode: 'urn:li:glossaryNode:Business' });
  }
  for (const p of PLATFORMS) {
    const db = containerUrn(p.id, 'warehouse');
    yield* containerProposals(db, p.id, 'warehouse', 'Database', null, [{ id: db, urn: db }]);
    for (const s of SCHEMAS) {
      const sc = containerUrn(p.id, 'warehouse', s);
      yield* containerProposals(sc, p.id, s, 'Schema', db, [{ id: db, urn: db }, { id: sc, urn: sc }]);
    }
  }
}

function* containerProposals(urn: string, platform: string, name: string, subType: string, parent: string | null,
  path: { id: string; urn: string }[]): Generator<Proposal> {
  yield mcp('container', urn, 'containerProperties', { name, description: `The ${name} ${subType.toLowerCase()} on ${platform}.`,
    customProperties: { platform, env: 'PROD' } });
  yield mcp('container', urn, 'subTypes', { typeNames: [subType] });
  yield mcp('container', urn, 'dataPlatformInstance', { platform: platformUrn(platform) });
  if (parent) yield mcp('container', urn, 'container', { container: parent });
  yield mcp('container', urn, 'browsePathsV2', { path: path.slice(0, -1) });
}

interface DatasetShape {
  urn: string;
  platform: (typeof PLATFORMS)[number];
  schema: string;
  table: string;
  columns: number;
  upstreams: string[];
  index: number;
}

function columnsOf(r: Rng, n: number, fixed: boolean) {
  const fields = [];
  const used = new Set<string>();
  for (let i = 0; i < n; i++) {
    let name = fixed && i === 0 ? SHOWCASE_FIELD : COLUMN_WORDS[i % COLUMN_WORDS.length]!;
    if (used.has(name)) name = `${name}_${i}`;
    used.add(name);
    const t = TYPES[(i * 7 + (fixed ? 0 : r.int(0, 6))) % TYPES.length]!;
    const field: Record<string, unknown> = {
      fieldPath: name, nativeDataType: t.native, type: { type: { [`com.linkedin.schema.${t.type}`]: {} } },
      nullable: i !== 0, recursive: false, isPartOfKey: i === 0,
    };
    if (fixed || r.chance(0.7)) field.description = `${name.replace(/_/g, ' ')}: ${SENTENCES[(i + (fixed ? 0 : r.int(0, 9))) % SENTENCES.length]}`;
    if (fixed ? i % 5 === 0 : r.chance(0.15)) field.globalTags = { tags: [{ tag: tagUrn(TAGS[i % TAGS.length]!) }] };
    if (fixed ? i % 7 === 0 : r.chance(0.1)) field.glossaryTerms = { terms: [{ urn: termUrn(TERMS[i % TERMS.length]!) }], auditStamp: stamp(EPOCH) };
    fields.push(field);
  }
  return fields;
}

/** Every proposal of one dataset (versioned aspects, then a profile and usage statistics for a few days). */
export function* datasetProposals(d: DatasetShape, r: Rng, fixed = false): Generator<Proposal> {
  const { urn, platform } = d;
  const db = containerUrn(platform.id, 'warehouse');
  const sc = containerUrn(platform.id, 'warehouse', d.schema);
  const created = EPOCH - (d.index % 365) * DAY;
  yield mcp('dataset', urn, 'datasetProperties', {
    name: d.table, qualifiedName: `warehouse.${d.schema}.${d.table}`,
    description: `${d.table.replace(/_/g, ' ')} in ${d.schema}: one row per ${d.table.split('_')[0]!.replace(/s$/, '')}, loaded ${fixed ? 'hourly' : r.pick(['hourly', 'daily', 'weekly'])} from the ${platform.name} warehouse.`,
    customProperties: { owner_team: fixed ? 'finance-analytics' : r.pick(GROUPS), retention_days: String(fixed ? 365 : r.int(7, 730)), format: platform.id === 's3' ? 'parquet' : 'table' },
    externalUrl: `https://${platform.id}.example.com/warehouse/${d.schema}/${d.table}`,
    created: { time: created }, lastModified: { time: created + DAY },
    tags: [],
  });
  yield mcp('dataset', urn, 'schemaMetadata', {
    schemaName: d.table, platform: platformUrn(platform.id), version: 0, created: stamp(created), lastModified: stamp(created + DAY), hash: '',
    platformSchema: { 'com.linkedin.schema.MySqlDDL': { tableSchema: '' } },
    fields: columnsOf(r, d.columns, fixed),
  });
  const owners = fixed ? ['jdoe', 'asmith'] : r.some(USERS, r.int(1, 3));
  yield mcp('dataset', urn, 'ownership', {
    owners: [...owners.map((u, i) => ({ owner: userUrn(u), type: i === 0 ? 'DATAOWNER' : 'TECHNICAL_OWNER' })),
      ...(fixed || r.chance(0.3) ? [{ owner: `urn:li:corpGroup:${fixed ? 'finance-analytics' : r.pick(GROUPS)}`, type: 'BUSINESS_OWNER' }] : [])],
    lastModified: stamp(created),
  });
  if (fixed || r.chance(0.6)) yield mcp('dataset', urn, 'globalTags', { tags: (fixed ? ['Gold', 'Finance'] : r.some(TAGS, r.int(1, 3))).map((t) => ({ tag: tagUrn(t) })) });
  if (fixed || r.chance(0.4)) {
    yield mcp('dataset', urn, 'glossaryTerms', { terms: (fixed ? ['Revenue', 'Order'] : r.some(TERMS, r.int(1, 2))).map((t) => ({ urn: termUrn(t) })),
      auditStamp: stamp(created) });
  }
  if (d.upstreams.length) {
    yield mcp('dataset', urn, 'upstreamLineage', { upstreams: d.upstreams.map((u) => ({ dataset: u, type: 'TRANSFORMED', auditStamp: stamp(created) })) });
  }
  yield mcp('dataset', urn, 'browsePathsV2', { path: [{ id: db, urn: db }, { id: sc, urn: sc }] });
  yield mcp('dataset', urn, 'container', { container: sc });
  yield mcp('dataset', urn, 'subTypes', { typeNames: [platform.subType] });
  yield mcp('dataset', urn, 'dataPlatformInstance', { platform: platformUrn(platform.id) });
  if (fixed || r.chance(0.3)) {
    yield mcp('dataset', urn, 'institutionalMemory', { elements: [
      { url: `https://wiki.example.com/data/${d.table}`, description: 'Runbook', createStamp: stamp(created) },
      { url: `https://dashboards.example.com/${d.table}`, description: 'Quality dashboard', createStamp: stamp(created) },
    ] });
  }
  const days = fixed ? 3 : 1 + (d.index % 2);
  for (let k = 0; k < days; k++) {
    const ts = EPOCH - k * DAY;
    yield mcp('dataset', urn, 'datasetProfile', {
      timestampMillis: ts, rowCount: 1000 + d.index * 37 + k, columnCount: d.columns, sizeInBytes: (1000 + d.index) * 512,
      fieldProfiles: [{ fieldPath: fixed ? SHOWCASE_FIELD : 'id', uniqueCount: 1000 + d.index, nullCount: 0, nullProportion: 0, uniqueProportion: 1 }],
    });
    const users = fixed ? ['jdoe', 'lchen'] : r.some(USERS, r.int(1, 3));
    yield mcp('dataset', urn, 'datasetUsageStatistics', {
      timestampMillis: ts, eventGranularity: { unit: 'DAY', multiple: 1 }, totalSqlQueries: 10 + (d.index % 50), uniqueUserCount: users.length,
      topSqlQueries: [`SELECT * FROM ${d.schema}.${d.table} LIMIT 10`],
      userCounts: users.map((u, i) => ({ user: userUrn(u), count: 5 + i, userEmail: `${u}@example.com` })),
      fieldCounts: [{ fieldPath: fixed ? SHOWCASE_FIELD : 'id', count: 7 }],
    });
  }
}

/** The showcase dataset: exactly 50 columns, properties, descriptions, tags, terms, owners, links. */
export function* showcaseProposals(): Generator<Proposal> {
  yield* datasetProposals({ urn: SHOWCASE_URN, platform: PLATFORMS[0], schema: 'sales', table: 'orders', columns: 50, upstreams: [], index: 0 }, rng(1), true);
}

/** The shape of generated dataset `i` (same seed → same shape). */
function shapeOf(i: number, r: Rng): DatasetShape {
  const platform = PLATFORMS[i % PLATFORMS.length]!;
  const schema = SCHEMAS[Math.floor(i / PLATFORMS.length) % SCHEMAS.length]!;
  const table = `${r.pick(NOUNS)}_${r.pick(QUALIFIERS)}_${i}`;
  // Mostly narrow tables, a long tail of wide ones (5–200 columns).
  const columns = r.chance(0.8) ? r.int(5, 30) : r.int(31, 200);
  const upstreams = i >= PLATFORMS.length && r.chance(0.5)
    ? [...new Set(Array.from({ length: r.int(1, 3) }, () => r.int(0, i - 1)))].map((j) => generatedDatasetUrn(j))
    : [];
  return { urn: datasetUrn(platform.id, `warehouse.${schema}.t${i}`), platform, schema, table, columns, upstreams, index: i };
}

/** The urn of generated dataset `i` (independent of the seed, so lineage and scenarios can name any dataset). */
export const generatedDatasetUrn = (i: number) => {
  const platform = PLATFORMS[i % PLATFORMS.length]!;
  const schema = SCHEMAS[Math.floor(i / PLATFORMS.length) % SCHEMAS.length]!;
  return datasetUrn(platform.id, `warehouse.${schema}.t${i}`);
};

function* extrasProposals(i: number, n: number): Generator<Proposal> {
  const inputs = [0, 1, 2].map((k) => generatedDatasetUrn((i + k) % n));
  const chart = `urn:li:chart:(looker,chart_${i})`;
  const dash = `urn:li:dashboard:(looker,dashboard_${i})`;
  const flow = `urn:li:dataFlow:(airflow,etl_${i},PROD)`;
  const job = `urn:li:dataJob:(${flow},load_${i})`;
  const lm = { created: stamp(EPOCH), lastModified: stamp(EPOCH) };
  yield mcp('chart', chart, 'chartInfo', { title: `Chart ${i}`, description: 'Weekly totals.', lastModified: lm, inputs: inputs.map((string) => ({ string })),
    customProperties: {} });
  yield mcp('chart', chart, 'ownership', { owners: [{ owner: userUrn(USERS[i % USERS.length]!), type: 'DATAOWNER' }], lastModified: stamp(EPOCH) });
  yield mcp('dashboard', dash, 'dashboardInfo', { title: `Dashboard ${i}`, description: 'Sales overview.', charts: [chart], lastModified: lm, customProperties: {} });
  yield mcp('dataFlow', flow, 'dataFlowInfo', { name: `etl_${i}`, description: 'Nightly load.', customProperties: {} });
  yield mcp('dataJob', job, 'dataJobInfo', { name: `load_${i}`, type: { string: 'COMMAND' }, customProperties: {} });
  yield mcp('dataJob', job, 'dataJobInputOutput', { inputDatasets: inputs.slice(0, 2), outputDatasets: [inputs[2]] });
}

/** Reference entities, the showcase dataset, then `datasets` generated datasets with charts, dashboards and jobs among them. */
export function* catalogProposals(opts: GenerateOptions): Generator<Proposal> {
  yield* referenceProposals();
  yield* showcaseProposals();
  yield* generatedDatasets(opts);
}

/** Only the generated datasets (and extras), for loading more into a catalog that has the reference entities already. */
export function* generatedDatasets(opts: GenerateOptions, from = 0): Generator<Proposal> {
  const seed = opts.seed ?? 42;
  const every = opts.extrasEvery ?? 100;
  for (let i = from; i < opts.datasets; i++) {
    const r = rng(seed * 1_000_003 + i); // per dataset, so any range generates the same datasets
    yield* datasetProposals(shapeOf(i, r), r);
    if (i % every === every - 1 || (i === opts.datasets - 1 && opts.datasets < every)) yield* extrasProposals(i, opts.datasets);
  }
}

/** Groups a stream of proposals into arrays of `size`. */
export function* batches<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let b: T[] = [];
  for (const x of items) {
    b.push(x);
    if (b.length >= size) { yield b; b = []; }
  }
  if (b.length) yield b;
}

/** Writes proposals as a DataHub file-format JSON list, streaming (a million datasets do not fit in one string). */
export async function writeProposalFile(file: string, proposals: Iterable<Proposal>): Promise<number> {
  const out = createWriteStream(file);
  let n = 0;
  const write = async (s: string) => { if (!out.write(s)) await once(out, 'drain'); };
  await write('[');
  for (const p of proposals) await write(`${n++ ? ',\n' : '\n'}${JSON.stringify(p)}`);
  await write('\n]\n');
  out.end();
  await once(out, 'finish');
  return n;
}

/** `npm run bench -- generate --datasets N [--seed S] [--out file.json]` (without --out: the JSON list to stdout). */
export async function run(args: string[] = []) {
  const opt = (name: string) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : undefined; };
  const datasets = Number(opt('datasets') ?? 100);
  const seed = Number(opt('seed') ?? 42);
  const out = opt('out');
  if (!Number.isInteger(datasets) || datasets < 0) throw new Error('--datasets must be a whole number');
  const proposals = catalogProposals({ datasets, seed });
  if (!out) {
    let first = true;
    process.stdout.write('[');
    for (const p of proposals) {
      if (!process.stdout.write(`${first ? '\n' : ',\n'}${JSON.stringify(p)}`)) await once(process.stdout, 'drain');
      first = false;
    }
    process.stdout.write('\n]\n');
    return;
  }
  const n = await writeProposalFile(out, proposals);
  console.log(`wrote ${n} proposals (${datasets} generated datasets + the showcase dataset, seed ${seed}) to ${out}`);
}
