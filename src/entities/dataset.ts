import { badRequest } from '../errors.js';
import { lookupTable } from '../model/safe-keys.js';
import { datasetKeyOf, decodeUrnPart, parseUrn } from '../model/urn.js';
import { aspect, defineEntity, gql, keyAspect, ref, type FieldContext } from './descriptor.js';
import {
  auditStamp, COMMON_FIELDS, customProperties, deprecation, globalTags, glossaryTerms, descriptionFor, hasProperties, type Layered,
} from './graphql-fields.js';
import { fineGrainedLineages } from './data-job.js';
import * as shared from './shared-aspects.js';
import { any, arr, bool, enumOf, int, map, num, rec, str, union, urn, type UnionValue } from './schema.js';

export const datasetKey = keyAspect('datasetKey', 'com.linkedin.metadata.key.DatasetKey',
  [['platform', 'urn'], ['name', 'string'], ['origin', 'fabric']]);

export const datasetProperties = aspect('datasetProperties', 'com.linkedin.dataset.DatasetProperties', rec({
  ...shared.customPropertiesField, ...shared.externalReferenceField, 'name?': str, 'qualifiedName?': str, 'description?': str,
  'uri?': str, 'created?': shared.timeStamp, 'lastModified?': shared.timeStamp, 'tags?': arr(str),
}), {
  searchText: shared.propertiesText,
  // DataHub's date fields of datasets (epoch milliseconds): range filters and sorting read them.
  facets: {
    createdAt: (v) => (v.created ? [String(v.created.time)] : []),
    lastModifiedAt: (v) => (v.lastModified ? [String(v.lastModified.time)] : []),
  },
});

export const editableDatasetProperties = aspect('editableDatasetProperties', 'com.linkedin.dataset.EditableDatasetProperties',
  rec({ 'description?': str, 'name?': str, ...shared.changeAuditStampFields }), { searchText: shared.editableText });

export const datasetDeprecation = aspect('datasetDeprecation', 'com.linkedin.dataset.DatasetDeprecation',
  rec({ deprecated: bool, 'decommissionTime?': int, note: str, 'actor?': urn }));

export const upstreamLineage = aspect('upstreamLineage', 'com.linkedin.dataset.UpstreamLineage', rec({
  upstreams: arr(rec({ 'auditStamp?': shared.auditStamp, 'created?': shared.auditStamp, dataset: urn,
    type: enumOf(['COPY', 'TRANSFORMED', 'VIEW']), 'properties?': map(str), 'query?': urn })),
  'fineGrainedLineages?': arr(shared.fineGrainedLineage),
}), {
  edges: (v, add) => {
    // DataHub 0.12.1 stamps the edge with the upstream's created (createdOn) and auditStamp (updatedOn).
    for (const u of v.upstreams) {
      add('DownstreamOf', u.dataset, { createdOn: u.created?.time, createdActor: u.created?.actor, updatedOn: u.auditStamp?.time,
        updatedActor: u.auditStamp?.actor, manual: u.properties?.source === 'UI' });
    }
    for (const l of v.fineGrainedLineages ?? []) for (const u of l.upstreams ?? []) add('DownstreamOf', u);
  },
});

export const datasetUpstreamLineage = aspect('datasetUpstreamLineage', 'com.linkedin.dataset.DatasetUpstreamLineage', rec({
  fieldMappings: arr(rec({ created: shared.auditStamp, transformation: any, sourceFields: arr(urn), destinationField: urn })),
}));

export const viewProperties = aspect('viewProperties', 'com.linkedin.dataset.ViewProperties',
  rec({ materialized: bool, viewLogic: str, viewLanguage: str }));

export const datasetProfile = aspect('datasetProfile', 'com.linkedin.dataset.DatasetProfile', rec({
  ...shared.timeseriesFields, 'rowCount?': int, 'columnCount?': int, 'sizeInBytes?': int,
  'fieldProfiles?': arr(rec({ fieldPath: str, 'uniqueCount?': int, 'uniqueProportion?': num, 'nullCount?': int,
    'nullProportion?': num, 'min?': str, 'max?': str, 'mean?': str, 'median?': str, 'stdev?': str,
    'quantiles?': arr(rec({ quantile: str, value: str })), 'distinctValueFrequencies?': arr(rec({ value: str, frequency: int })),
    'histogram?': rec({ boundaries: arr(str), heights: arr(num) }), 'sampleValues?': arr(str) })),
}), { timeseries: true });

export const datasetUsageStatistics = aspect('datasetUsageStatistics', 'com.linkedin.dataset.DatasetUsageStatistics', rec({
  ...shared.timeseriesFields, 'uniqueUserCount?': int, 'totalSqlQueries?': int, 'topSqlQueries?': arr(str),
  'userCounts?': arr(rec({ user: urn, count: int, 'userEmail?': str })), 'fieldCounts?': arr(rec({ fieldPath: str, count: int })),
}), { timeseries: true });

/** A change to a dataset's data. MANUAL and queries come from later DataHub versions; accepted, as before. */
export const operation = aspect('operation', 'com.linkedin.common.Operation', rec({
  ...shared.timeseriesFields, 'actor?': urn,
  operationType: enumOf(['INSERT', 'UPDATE', 'DELETE', 'CREATE', 'ALTER', 'DROP', 'UNKNOWN', 'CUSTOM']),
  'customOperationType?': str, 'numAffectedRows?': int, 'affectedDatasets?': arr(urn),
  'sourceType?': enumOf(['DATA_PROCESS', 'DATA_PLATFORM', 'MANUAL']), 'customProperties?': map(str),
  lastUpdatedTimestamp: int, 'queries?': arr(urn),
}), { timeseries: true });

// ---------------------------------------------------------------------------------------------------------------
// GraphQL

const SCHEMA_TYPES: Readonly<Record<string, string>> = lookupTable<string>({
  BooleanType: 'BOOLEAN', FixedType: 'FIXED', StringType: 'STRING', BytesType: 'BYTES', NumberType: 'NUMBER',
  DateType: 'DATE', TimeType: 'TIME', EnumType: 'ENUM', NullType: 'NULL', MapType: 'MAP', ArrayType: 'ARRAY',
  UnionType: 'UNION', RecordType: 'STRUCT',
});

function fieldType(t: { type?: UnionValue } | undefined): string {
  const cls = t?.type && typeof t.type === 'object' ? Object.keys(t.type)[0] : undefined;
  return SCHEMA_TYPES[cls?.split('.').pop() ?? ''] ?? 'NULL';
}

function platformSchema(ps: UnionValue | undefined) {
  if (!ps) return null;
  const [cls, body] = Object.entries(ps)[0] ?? [];
  if (!cls || !body) return null;
  const b = body as Record<string, unknown>;
  if (cls.endsWith('KafkaSchema') && b.keySchema) return { __typename: 'KeyValueSchema', keySchema: b.keySchema, valueSchema: b.documentSchema ?? '' };
  if (cls.endsWith('KeyValueSchema')) return { __typename: 'KeyValueSchema', keySchema: b.keySchema ?? '', valueSchema: b.valueSchema ?? '' };
  const schema = b.documentSchema ?? b.tableSchema ?? b.rawSchema ?? b.schema ?? b.sql ?? '';
  return { __typename: 'TableSchema', schema: typeof schema === 'string' ? schema : JSON.stringify(schema) };
}

/**
 * schemaMetadata as DataHub's SchemaMetadataMapper and SchemaFieldMapper serve it: each field as ingested, its tags
 * and terms the ingested ones alone (the edited ones are editableSchemaMetadata's, as in DataHub, whose web app merges
 * the two layers itself). A field's description is the one the read answers (descriptionFor): on /api/graphql, given
 * the edited layer, the text users see.
 */
export function schemaMetadataOut(urnText: string, schema: shared.SchemaMetadata, version: number, at: Layered,
  editable?: shared.EditableSchemaMetadata) {
  const edited = new Map((editable?.editableSchemaFieldInfo ?? []).map((e) => [e.fieldPath, e.description]));
  return {
    aspectVersion: version,
    datasetUrn: urnText,
    name: schema.schemaName ?? '',
    platformUrn: schema.platform ?? '',
    version: schema.version ?? 0,
    cluster: schema.cluster ?? null,
    hash: schema.hash ?? '',
    platformSchema: platformSchema(schema.platformSchema),
    primaryKeys: schema.primaryKeys ?? null,
    foreignKeys: null,
    createdAt: schema.created?.time ?? null,
    lastObserved: null,
    fields: (schema.fields ?? []).map((f) => {
      const tags = globalTags(f.globalTags, urnText);
      return {
        fieldPath: f.fieldPath,
        jsonPath: f.jsonPath ?? null,
        label: f.label ?? null,
        nullable: !!f.nullable,
        description: descriptionFor(at, edited.get(f.fieldPath), f.description),
        type: fieldType(f.type),
        nativeDataType: f.nativeDataType ?? null,
        recursive: !!f.recursive,
        globalTags: tags,
        tags,
        glossaryTerms: glossaryTerms(f.glossaryTerms, urnText),
        isPartOfKey: f.isPartOfKey ?? null,
        isPartitioningKey: f.isPartitioningKey ?? null,
        jsonProps: f.jsonProps ?? null,
        schemaFieldEntity: ref(`urn:li:schemaField:(${urnText},${f.fieldPath})`),
      };
    }),
  };
}

const keyOf = (f: FieldContext) => datasetKeyOf(parseUrn(f.urn));

const SDL = gql`
type ViewProperties {
  materialized: Boolean!
  logic: String!
  language: String!
}

type SiblingProperties {
  isPrimary: Boolean
  siblings: [Entity]
}

"The kind of a dataset on its platform (deprecated; DataHub 0.12.1 never sets it on a dataset)."
enum PlatformNativeType { TABLE VIEW DICTIONARY STREAM BUCKET }

type Dataset implements EntityWithRelationships & Entity & BrowsableEntity {
  urn: String!
  type: EntityType!
  platform: DataPlatform!
  "The dataset-name part of the urn."
  name: String!
  origin: FabricType!
  properties: DatasetProperties
  editableProperties: DatasetEditableProperties
  schemaMetadata(version: Long): SchemaMetadata
  editableSchemaMetadata: EditableSchemaMetadata
  institutionalMemory: InstitutionalMemory
  globalTags: GlobalTags
  tags: GlobalTags
  glossaryTerms: GlossaryTerms
  ownership: Ownership
  deprecation: Deprecation
  status: Status
  container: Container
  parentContainers: ParentContainersResult
  subTypes: SubTypes
  domain: DomainAssociation
  dataPlatformInstance: DataPlatformInstance
  browsePaths: [BrowsePath!]
  browsePathV2: BrowsePathV2
  embed: Embed
  "When metadata of this dataset was last ingested (from system metadata)."
  lastIngested: Long
  exists: Boolean
  privileges: EntityPrivileges
  "A view's definition, when the dataset is one."
  viewProperties: ViewProperties
  siblings: SiblingProperties
  "One hop of lineage: upstream (datasets it derives from, jobs that produce it) or downstream (datasets, jobs, charts, dashboards and ML features reading it)."
  lineage(input: LineageInput!): EntityLineageResult
  "Column-level lineage into this dataset (upstreamLineage.fineGrainedLineages), schema-field members only."
  fineGrainedLineages: [FineGrainedLineage!]
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
  "Deprecated: the ingested description; use properties.description."
  description: String
  externalUrl: String
  "Where the dataset lives, as its source names it (datasetProperties.uri)."
  uri: String
  platformNativeType: PlatformNativeType @deprecated
}

type DatasetProperties {
  name: String!
  qualifiedName: String
  origin: FabricType!
  "On /api/graphql the description users see: the edited text where one exists, else the ingested one (an Almanac difference). On /api/v2/graphql (DataHub's web app) the ingested one, as in DataHub; the edited one is in editableProperties."
  description: String
  customProperties: [CustomPropertiesEntry!]
  externalUrl: String
  created: Long
  createdActor: String
  lastModified: AuditStamp!
  lastModifiedActor: String
}

type DatasetEditableProperties {
  description: String
  name: String
}

type SchemaMetadata {
  aspectVersion: Long
  datasetUrn: String
  name: String!
  platformUrn: String!
  version: Long!
  cluster: String
  hash: String!
  platformSchema: PlatformSchema
  fields: [SchemaField!]!
  primaryKeys: [String!]
  foreignKeys: [ForeignKeyConstraint]
  createdAt: Long
  lastObserved: Long
}

union PlatformSchema = TableSchema | KeyValueSchema

type TableSchema {
  schema: String!
}

type KeyValueSchema {
  keySchema: String!
  valueSchema: String!
}

type ForeignKeyConstraint {
  name: String
  foreignFields: [SchemaFieldEntity]
  sourceFields: [SchemaFieldEntity]
  foreignDataset: Dataset
}

enum SchemaFieldDataType { BOOLEAN FIXED STRING BYTES NUMBER DATE TIME ENUM NULL MAP ARRAY UNION STRUCT }

type SchemaField {
  fieldPath: String!
  jsonPath: String
  label: String
  nullable: Boolean!
  "On /api/graphql the description users see: the edited text where one exists, else the ingested one (an Almanac difference). On /api/v2/graphql (DataHub's web app) the ingested one, as in DataHub; the edited one is in editableSchemaMetadata."
  description: String
  type: SchemaFieldDataType!
  nativeDataType: String
  recursive: Boolean!
  "The ingested tags; the edited ones are in editableSchemaMetadata."
  globalTags: GlobalTags
  tags: GlobalTags
  "The ingested terms; the edited ones are in editableSchemaMetadata."
  glossaryTerms: GlossaryTerms
  isPartOfKey: Boolean
  isPartitioningKey: Boolean
  jsonProps: String
  schemaFieldEntity: SchemaFieldEntity
}

type EditableSchemaMetadata {
  editableSchemaFieldInfo: [EditableSchemaFieldInfo!]!
}

type EditableSchemaFieldInfo {
  fieldPath: String!
  description: String
  globalTags: GlobalTags
  tags: GlobalTags
  glossaryTerms: GlossaryTerms
}
`;

/** Datasets: tables, views, topics, files — the catalog's main entity. */
export const dataset = defineEntity({
  name: 'dataset',
  category: 'core',
  display: { label: 'Dataset', rank: 10 },
  // upstreamLineage.upstreams: DownstreamOf a dataset.
  lineage: { upstream: [{ type: 'DownstreamOf', entityTypes: ['dataset'] }] },
  key: datasetKey,
  aspects: [viewProperties, shared.subTypes, datasetProfile, datasetUsageStatistics, operation, shared.domains, shared.schemaMetadata,
    shared.status, shared.container, shared.deprecation, shared.testResults, shared.siblings, shared.embed, datasetProperties,
    editableDatasetProperties, datasetDeprecation, datasetUpstreamLineage, upstreamLineage, shared.institutionalMemory,
    shared.ownership, shared.editableSchemaMetadata, shared.globalTags, shared.glossaryTerms, shared.browsePaths,
    shared.dataPlatformInstance, shared.browsePathsV2, shared.access],
  snapshotClass: 'com.linkedin.metadata.snapshot.DatasetSnapshot',
  graphql: {
    entityType: 'DATASET',
    objectType: 'Dataset',
    rootField: 'dataset',
    sdl: SDL,
    fields: {
      ...COMMON_FIELDS,
      platform: (f) => ref(keyOf(f).platform),
      viewProperties: async (f) => {
        const v = await f.aspect(viewProperties);
        return v ? { materialized: v.materialized, logic: v.viewLogic, language: v.viewLanguage } : null;
      },
      siblings: async (f) => {
        const s = await f.aspect(shared.siblings);
        return s ? { isPrimary: s.primary, siblings: s.siblings.map(ref) } : null;
      },
      name: (f) => keyOf(f).name,
      origin: (f) => keyOf(f).origin,
      properties: async (f) => {
        const [p, e] = await Promise.all([f.aspect(datasetProperties), f.aspect(editableDatasetProperties)]);
        if (!hasProperties(f, p, e)) return null;
        const key = keyOf(f);
        return {
          name: p?.name ?? key.name,
          qualifiedName: p?.qualifiedName ?? null,
          origin: key.origin,
          description: descriptionFor(f, e?.description, p?.description),
          customProperties: customProperties(p?.customProperties, f.urn),
          externalUrl: p?.externalUrl ?? null,
          created: p?.created?.time ?? null,
          createdActor: p?.created?.actor ?? null,
          lastModified: auditStamp(p?.lastModified),
          lastModifiedActor: p?.lastModified?.actor ?? null,
        };
      },
      editableProperties: async (f) => {
        const e = await f.aspect(editableDatasetProperties);
        return e ? { description: e.description ?? null, name: e.name ?? null } : null;
      },
      schemaMetadata: async (f) => {
        const v = (f.args.version as number | null | undefined) ?? 0;
        if (!Number.isInteger(v) || v < 0) throw badRequest(`version must be a whole number ≥ 0, got ${v}`);
        const [schema, editable] = await Promise.all([v === 0 ? f.aspect(shared.schemaMetadata) : f.aspectVersion(shared.schemaMetadata, v),
          f.descriptionLayer === 'visible' ? f.aspect(shared.editableSchemaMetadata) : undefined]);
        return schema ? schemaMetadataOut(f.urn, schema, v, f, editable) : null;
      },
      editableSchemaMetadata: async (f) => {
        const e = await f.aspect(shared.editableSchemaMetadata);
        if (!e) return null;
        return {
          editableSchemaFieldInfo: (e.editableSchemaFieldInfo ?? []).map((c) => {
            const tags = globalTags(c.globalTags, f.urn);
            return { fieldPath: c.fieldPath, description: c.description ?? null, globalTags: tags, tags,
              glossaryTerms: glossaryTerms(c.glossaryTerms, f.urn) };
          }),
        };
      },
      deprecation: async (f) => deprecation(await f.aspect(shared.deprecation), await f.aspect(datasetDeprecation)),
      fineGrainedLineages: async (f) => {
        const up = await f.aspect(upstreamLineage);
        return up ? fineGrainedLineages(up) : null;
      },
      description: async (f) => (await f.aspect(datasetProperties))?.description ?? null,
      externalUrl: async (f) => (await f.aspect(datasetProperties))?.externalUrl ?? null,
      uri: async (f) => (await f.aspect(datasetProperties))?.uri ?? null,
      platformNativeType: () => null,
    },
  },
  search: {
    name: (k) => decodeUrnPart(k.name ?? ''),
    facets: {
      origin: (k) => (k.origin ? [k.origin] : []),
    },
  },
  // DataHub's default: /<origin>/<platform name>/<name's parts but the last, split at the platform's delimiter>, lower
  // case. Its split drops trailing empty parts; the folders get a leading / unless they start with one.
  browsePath: (k, delimiter = '.') => {
    const name = decodeUrnPart(k.name ?? '');
    let folders = '';
    if (delimiter && name.includes(delimiter)) {
      const parts = name.split(delimiter);
      while (parts.length && parts[parts.length - 1] === '') parts.pop();
      const joined = parts.slice(0, -1).join('/');
      folders = joined.startsWith('/') ? joined : `/${joined}`;
    }
    return `/${k.origin}/${(k.platform ?? '').replace('urn:li:dataPlatform:', '')}${folders}`.toLowerCase();
  },
  displayName: (k) => decodeUrnPart(k.name ?? ''),
  platform: (k) => k.platform,
  edits: { description: { aspect: editableDatasetProperties, field: 'description', stamped: true } },
});
