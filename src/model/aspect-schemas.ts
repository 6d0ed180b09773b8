import { unprocessable } from '../errors.js';
import { ASPECTS, ENTITY_TYPES } from './registry.js';
import { findPrototypeKey, lookupTable } from './safe-keys.js';

/**
 * Schemas of DataHub's aspects, written for Almanac from the fields DataHub defines: required fields, types,
 * enums, nested records, arrays and maps. Unknown extra fields are kept and accepted. Validation runs on
 * normalised values (Avro wrappers removed, nulls dropped) and reports the first problem with its path.
 */
export interface AspectIssue {
  path: string;
  message: string;
}

/**
 * A checker returns null when the value fits, else the issue. The path to the value is a stack the checkers push
 * to and pop from, turned into text only when something is wrong, so a valid value costs no allocation.
 */
type Path = (string | number)[];
type Check = (v: unknown, path: Path) => AspectIssue | null;

const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
function pathText(path: Path): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out ? `.${seg}` : seg;
  return out;
}
const issue = (path: Path, message: string): AspectIssue => {
  const p = pathText(path);
  return { path: p, message: p ? `${p}: ${message}` : message };
};
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const str: Check = (v, p) => (typeof v === 'string' ? null : issue(p, `expected a string, got ${describe(v)}`));
const bool: Check = (v, p) => (typeof v === 'boolean' ? null : issue(p, `expected a boolean, got ${describe(v)}`));
/** DataHub's int and long: a whole number within 64 bits (1e308 is refused here, not by a bigint column later). */
const LONG_MIN = -(2 ** 63);
const int: Check = (v, p) => (typeof v === 'number' && Number.isInteger(v) && v >= LONG_MIN && v < 2 ** 63 ? null
  : issue(p, `expected a whole number${typeof v === 'number' && Number.isInteger(v) ? ' within 64 bits' : ''}, got ${describe(v) === 'number' ? v : describe(v)}`));
const num: Check = (v, p) => (typeof v === 'number' && Number.isFinite(v) ? null : issue(p, `expected a number, got ${describe(v)}`));
const urn: Check = (v, p) => (typeof v === 'string' && v.startsWith('urn:') ? null
  : issue(p, typeof v === 'string' ? `expected a urn, got '${v.length > 80 ? v.slice(0, 80) + '…' : v}'` : `expected a urn, got ${describe(v)}`));
const any: Check = () => null;

function enumOf(values: readonly string[]): Check {
  const set = new Set(values);
  return (v, p) => (typeof v === 'string' && set.has(v) ? null
    : issue(p, typeof v === 'string' ? `'${v}' is not one of ${values.join(', ')}` : `expected a string, got ${describe(v)}`));
}

function arr(item: Check): Check {
  return (v, p) => {
    if (!Array.isArray(v)) return issue(p, `expected a list, got ${describe(v)}`);
    for (let i = 0; i < v.length; i++) {
      p.push(i);
      const r = item(v[i], p);
      p.pop();
      if (r) return r;
    }
    return null;
  };
}

function map(value: Check): Check {
  return (v, p) => {
    if (!isObj(v)) return issue(p, `expected a map, got ${describe(v)}`);
    for (const k in v) {
      if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
      p.push(k);
      const r = value(v[k], p);
      p.pop();
      if (r) return r;
    }
    return null;
  };
}

/** Fields ending in `?` are optional. */
function rec(fields: Record<string, Check>): Check {
  const names: string[] = [];
  const optional: boolean[] = [];
  const checks: Check[] = [];
  for (const [k, c] of Object.entries(fields)) {
    const opt = k.endsWith('?');
    names.push(opt ? k.slice(0, -1) : k);
    optional.push(opt);
    checks.push(c);
  }
  return (v, p) => {
    if (!isObj(v)) return issue(p, `expected an object, got ${describe(v)}`);
    for (let i = 0; i < names.length; i++) {
      const k = names[i]!;
      // Own fields only: an inherited value is not part of what was sent.
      const x = Object.hasOwn(v, k) ? v[k] : undefined;
      if (x === undefined) {
        if (optional[i]) continue;
        p.push(k);
        const r = issue(p, 'required field is missing');
        p.pop();
        return r;
      }
      p.push(k);
      const r = checks[i]!(x, p);
      p.pop();
      if (r) return r;
    }
    return null;
  };
}

/** A Pegasus union on the wire: a one-key object named after the member's class. */
const union: Check = (v, p) => {
  if (isObj(v)) {
    let n = 0;
    for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k) && ++n > 1) break;
    if (n === 1) return null;
  }
  return issue(p, `expected a one-key object naming the union member, got ${describe(v)}`);
};

// Shared pieces
const auditStamp = rec({ time: int, actor: urn, 'impersonator?': urn, 'message?': str });
const changeStamps = { 'created?': auditStamp, 'lastModified?': auditStamp, 'deleted?': auditStamp };
const OWNERSHIP_TYPES = ['TECHNICAL_OWNER', 'BUSINESS_OWNER', 'DATA_STEWARD', 'NONE', 'CUSTOM', 'DATAOWNER', 'PRODUCER',
  'DEVELOPER', 'CONSUMER', 'DELEGATE', 'STAKEHOLDER'];
const globalTags = rec({ tags: arr(rec({ tag: urn, 'context?': str })) });
const glossaryTerms = rec({ terms: arr(rec({ urn, 'context?': str })), 'auditStamp?': auditStamp });
const customProperties = map(str);
const timeseriesBase = {
  timestampMillis: int,
  'eventGranularity?': rec({ unit: enumOf(['SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR']), 'multiple?': int }),
  'partitionSpec?': rec({ 'type?': enumOf(['FULL_TABLE', 'QUERY', 'PARTITION']), 'partition?': str, 'timePartition?': any }),
  'messageId?': str,
};
const schemaField = rec({
  fieldPath: str, 'jsonPath?': str, 'nullable?': bool, 'description?': str, 'label?': str, type: rec({ type: union }),
  nativeDataType: str, 'recursive?': bool, 'globalTags?': globalTags, 'glossaryTerms?': glossaryTerms, 'isPartOfKey?': bool,
  'isPartitioningKey?': bool, 'jsonProps?': str, ...changeStamps,
});
const editableFieldInfo = rec({ fieldPath: str, 'description?': str, 'globalTags?': globalTags, 'glossaryTerms?': glossaryTerms });
const usageUserCounts = arr(rec({ user: urn, count: int, 'userEmail?': str }));

const SCHEMAS: Readonly<Record<string, Check>> = lookupTable<Check>({
  // common
  ownership: rec({ owners: arr(rec({ owner: urn, type: enumOf(OWNERSHIP_TYPES), 'typeUrn?': urn,
    'source?': rec({ type: enumOf(['AUDIT', 'DATABASE', 'FILE_SYSTEM', 'ISSUE_TRACKING_SYSTEM', 'MANUAL', 'SERVICE', 'SOURCE_CONTROL', 'OTHER']), 'url?': str }) })),
    'lastModified?': auditStamp }),
  status: rec({ removed: bool }),
  globalTags,
  glossaryTerms,
  institutionalMemory: rec({ elements: arr(rec({ url: str, description: str, createStamp: auditStamp })) }),
  browsePaths: rec({ paths: arr(str) }),
  browsePathsV2: rec({ path: arr(rec({ id: str, 'urn?': urn })) }),
  deprecation: rec({ deprecated: bool, 'decommissionTime?': int, note: str, actor: urn }),
  subTypes: rec({ typeNames: arr(str) }),
  dataPlatformInstance: rec({ platform: urn, 'instance?': urn }),
  container: rec({ container: urn }),
  domains: rec({ domains: arr(urn) }),
  siblings: rec({ siblings: arr(urn), primary: bool }),
  embed: rec({ 'renderUrl?': str }),
  // DataHub writes this union in the Avro form {fieldDiscriminator, costCode|costId}: an object either way.
  cost: rec({ costType: str, cost: rec({}) }),
  // datasets
  datasetProperties: rec({ 'customProperties?': customProperties, 'externalUrl?': str, 'name?': str, 'qualifiedName?': str,
    'description?': str, 'uri?': str, 'created?': rec({ time: int, 'actor?': urn }), 'lastModified?': rec({ time: int, 'actor?': urn }),
    'tags?': arr(str) }),
  editableDatasetProperties: rec({ 'description?': str, 'name?': str, ...changeStamps }),
  datasetDeprecation: rec({ deprecated: bool, 'decommissionTime?': int, note: str, 'actor?': urn }),
  upstreamLineage: rec({ upstreams: arr(rec({ 'auditStamp?': auditStamp, 'created?': auditStamp, dataset: urn,
    type: enumOf(['COPY', 'TRANSFORMED', 'VIEW']), 'properties?': customProperties, 'query?': urn })),
    'fineGrainedLineages?': arr(rec({ upstreamType: str, 'upstreams?': arr(urn), downstreamType: str, 'downstreams?': arr(urn),
      'transformOperation?': str, 'confidenceScore?': num, 'query?': urn })) }),
  viewProperties: rec({ materialized: bool, viewLogic: str, viewLanguage: str }),
  schemaMetadata: rec({ schemaName: str, platform: urn, version: int, 'created?': auditStamp, 'lastModified?': auditStamp,
    'deleted?': auditStamp, 'dataset?': urn, 'cluster?': str, hash: str, platformSchema: union, fields: arr(schemaField),
    'primaryKeys?': arr(str), 'foreignKeysSpecs?': map(any), 'foreignKeys?': arr(any) }),
  editableSchemaMetadata: rec({ ...changeStamps, editableSchemaFieldInfo: arr(editableFieldInfo) }),
  // identity
  corpUserInfo: rec({ active: bool, 'displayName?': str, 'email?': str, 'title?': str, 'managerUrn?': urn, 'departmentId?': int,
    'departmentName?': str, 'firstName?': str, 'lastName?': str, 'fullName?': str, 'countryCode?': str, 'customProperties?': customProperties }),
  corpUserEditableInfo: rec({ 'aboutMe?': str, 'teams?': arr(str), 'skills?': arr(str), 'pictureLink?': str, 'displayName?': str,
    'title?': str, 'slack?': str, 'phone?': str, 'email?': str }),
  corpUserStatus: rec({ status: str, lastModified: auditStamp }),
  groupMembership: rec({ groups: arr(urn) }),
  nativeGroupMembership: rec({ nativeGroups: arr(urn) }),
  roleMembership: rec({ roles: arr(urn) }),
  origin: rec({ type: enumOf(['NATIVE', 'EXTERNAL']), 'externalType?': str }),
  corpGroupInfo: rec({ 'displayName?': str, 'email?': str, 'admins?': arr(urn), 'members?': arr(urn), 'groups?': arr(urn), 'description?': str,
    'slack?': str, 'created?': auditStamp }),
  corpGroupEditableInfo: rec({ 'description?': str, 'pictureLink?': str, 'slack?': str, 'email?': str }),
  // tags, glossary, platforms, containers, domains
  tagProperties: rec({ name: str, 'description?': str, 'colorHex?': str }),
  glossaryTermInfo: rec({ 'id?': str, 'name?': str, definition: str, 'parentNode?': urn, termSource: str, 'sourceRef?': str,
    'sourceUrl?': str, 'customProperties?': customProperties, 'rawSchema?': str }),
  glossaryNodeInfo: rec({ definition: str, 'parentNode?': urn, 'name?': str, 'id?': str }),
  dataPlatformInfo: rec({ name: str, 'displayName?': str, type: enumOf(['FILE_SYSTEM', 'KEY_VALUE_STORE', 'MESSAGE_BROKER',
    'OBJECT_STORE', 'OLAP_DATASTORE', 'OTHERS', 'QUERY_ENGINE', 'RELATIONAL_DB', 'SEARCH_ENGINE']), datasetNameDelimiter: str, 'logoUrl?': str }),
  containerProperties: rec({ 'customProperties?': customProperties, 'externalUrl?': str, name: str, 'qualifiedName?': str,
    'description?': str, 'created?': rec({ time: int, 'actor?': urn }), 'lastModified?': rec({ time: int, 'actor?': urn }) }),
  editableContainerProperties: rec({ 'description?': str }),
  domainProperties: rec({ name: str, 'description?': str, 'created?': auditStamp, 'parentDomain?': urn }),
  // metadata tests
  testInfo: rec({ name: str, category: str, 'description?': str, definition: rec({ type: enumOf(['JSON', 'YAML']), 'json?': str }) }),
  testResults: rec({ failing: arr(rec({ test: urn, type: enumOf(['SUCCESS', 'FAILURE']) })), passing: arr(rec({ test: urn, type: enumOf(['SUCCESS', 'FAILURE']) })) }),
  // access control
  dataHubAccessTokenInfo: rec({ name: str, actorUrn: urn, ownerUrn: urn, createdAt: int, 'expiresAt?': int, 'description?': str }),
  dataHubPolicyInfo: rec({ displayName: str, 'description?': str, type: enumOf(['PLATFORM', 'METADATA']),
    state: enumOf(['ACTIVE', 'INACTIVE', 'DRAFT']), 'resources?': rec({ 'type?': str, 'resources?': arr(urn), 'allResources?': bool,
      'filter?': rec({ criteria: arr(rec({ field: str, values: arr(str), 'condition?': enumOf(['EQUALS', 'STARTS_WITH']) })) }) }),
    privileges: arr(str), actors: rec({ 'users?': arr(urn), 'groups?': arr(urn), 'roles?': arr(urn), 'allUsers?': bool,
      'allGroups?': bool, 'resourceOwners?': bool, 'resourceOwnersTypes?': arr(urn) }), 'editable?': bool, 'lastUpdatedTimestamp?': int }),
  ownershipTypeInfo: rec({ name: str, 'description?': str, 'created?': auditStamp, 'lastModified?': auditStamp }),
  // jobs, charts, dashboards
  dataJobInfo: rec({ 'customProperties?': customProperties, 'externalUrl?': str, name: str, 'description?': str, type: any,
    'flowUrn?': urn, 'status?': str }),
  dataJobInputOutput: rec({ 'inputDatasets?': arr(urn), 'outputDatasets?': arr(urn), 'inputDatajobs?': arr(urn),
    'inputDatasetEdges?': arr(any), 'outputDatasetEdges?': arr(any), 'inputDatasetFields?': arr(urn), 'outputDatasetFields?': arr(urn) }),
  dataFlowInfo: rec({ 'customProperties?': customProperties, 'externalUrl?': str, name: str, 'description?': str, 'project?': str }),
  chartInfo: rec({ 'customProperties?': customProperties, 'externalUrl?': str, title: str, description: str, lastModified: rec({ created: auditStamp, lastModified: auditStamp }),
    'chartUrl?': str, 'inputs?': arr(urn), 'inputEdges?': arr(any), 'type?': str, 'access?': str, 'lastRefreshed?': int }),
  dashboardInfo: rec({ 'customProperties?': customProperties, 'externalUrl?': str, title: str, description: str, 'charts?': arr(urn),
    'chartEdges?': arr(any), 'datasets?': arr(urn), lastModified: rec({ created: auditStamp, lastModified: auditStamp }), 'dashboardUrl?': str }),
  // time series
  datasetProfile: rec({ ...timeseriesBase, 'rowCount?': int, 'columnCount?': int, 'sizeInBytes?': int,
    'fieldProfiles?': arr(rec({ fieldPath: str, 'uniqueCount?': int, 'uniqueProportion?': num, 'nullCount?': int,
      'nullProportion?': num, 'min?': str, 'max?': str, 'mean?': str, 'median?': str, 'stdev?': str,
      'quantiles?': arr(rec({ quantile: str, value: str })), 'distinctValueFrequencies?': arr(rec({ value: str, frequency: int })),
      'histogram?': rec({ boundaries: arr(str), heights: arr(num) }), 'sampleValues?': arr(str) })) }),
  datasetUsageStatistics: rec({ ...timeseriesBase, 'uniqueUserCount?': int, 'totalSqlQueries?': int, 'topSqlQueries?': arr(str),
    'userCounts?': usageUserCounts, 'fieldCounts?': arr(rec({ fieldPath: str, count: int })) }),
  operation: rec({ ...timeseriesBase, 'actor?': urn, operationType: enumOf(['INSERT', 'UPDATE', 'DELETE', 'CREATE', 'ALTER', 'DROP', 'UNKNOWN', 'CUSTOM']),
    'customOperationType?': str, 'numAffectedRows?': int, 'affectedDatasets?': arr(urn),
    'sourceType?': enumOf(['DATA_PROCESS', 'DATA_PLATFORM', 'MANUAL']), 'customProperties?': customProperties,
    lastUpdatedTimestamp: int, 'queries?': arr(urn) }),
  chartUsageStatistics: rec({ ...timeseriesBase, 'viewsCount?': int, 'uniqueUserCount?': int,
    'userCounts?': arr(rec({ user: urn, 'viewsCount?': int })) }),
  dashboardUsageStatistics: rec({ ...timeseriesBase, 'viewsCount?': int, 'executionsCount?': int, 'uniqueUserCount?': int,
    'userCounts?': arr(rec({ user: urn, 'viewsCount?': int, 'executionsCount?': int, 'usageCount?': int, 'userEmail?': str })),
    'favoritesCount?': int, 'lastViewedAt?': int }),
  assertionRunEvent: rec({ ...timeseriesBase, runId: str, asserteeUrn: urn, 'batchSpec?': any, status: enumOf(['COMPLETE', 'RUNNING']),
    'result?': rec({ type: enumOf(['SUCCESS', 'FAILURE', 'ERROR', 'INIT']) }), assertionUrn: urn, 'runtimeContext?': customProperties }),
  dataProcessInstanceRunEvent: rec({ ...timeseriesBase, 'externalUrl?': str, status: enumOf(['STARTED', 'COMPLETE']), 'attempt?': int,
    'result?': rec({ type: enumOf(['SUCCESS', 'FAILURE', 'SKIPPED', 'UP_FOR_RETRY']), nativeResultType: str }), 'durationMillis?': int }),
  datahubIngestionRunSummary: rec({ ...timeseriesBase, pipelineName: str, platformInstanceId: str, runId: str,
    runStatus: enumOf(['STARTED', 'COMPLETE', 'FAILURE', 'SUCCESS', 'SKIPPED']) }),
  datahubIngestionCheckpoint: rec({ ...timeseriesBase, pipelineName: str, platformInstanceId: str, config: str, state: any, runId: str }),
});

/** Aspects modelled only as "an object": their fields are not checked yet. */
const OBJECT_ONLY = rec({});
/** Key aspects: the urn's parts, all strings. */
const KEY = map(str);

const KEY_NAMES = new Set([...ENTITY_TYPES.values()].map((e) => e.keyAspect));

function schemaOf(aspect: string): Check | undefined {
  if (SCHEMAS[aspect]) return SCHEMAS[aspect];
  if (KEY_NAMES.has(aspect)) return KEY;
  if (ASPECTS.has(aspect)) return OBJECT_ONLY;
  return undefined;
}

export function hasSchema(aspect: string): boolean {
  return schemaOf(aspect) !== undefined;
}

/**
 * The first problem with the value, or null when it fits the aspect's schema (unknown aspects: null). Whatever the
 * aspect, a key that could reach a prototype (`__proto__`, `constructor.prototype`) is a problem: every write is
 * validated here, so no such key is ever stored.
 */
export function validateAspect(aspect: string, value: unknown): AspectIssue | null {
  const unsafe = findPrototypeKey(value);
  if (unsafe !== undefined) return { path: unsafe, message: `${unsafe}: this key is not allowed (it names an object's prototype)` };
  const check = schemaOf(aspect);
  return check ? check(value, []) : null;
}

export function validateOrThrow(aspect: string, value: unknown): void {
  const found = validateAspect(aspect, value);
  if (found) throw unprocessable(`Invalid aspect ${aspect}: ${found.message}`, { aspect, field: found.path });
}
