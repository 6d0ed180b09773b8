import { aspect, type TextSink } from './descriptor.js';
import { OWNERSHIP_TYPES } from './ownership-types.js';
import { any, arr, bool, enumOf, int, map, num, rec, str, union, urn, type Infer } from './schema.js';

/**
 * Aspects and records that several entity types share, each defined once: its schema (and so its type), the
 * relationships it declares and what it gives search. Descriptors compose them.
 */

const ids = (list: readonly string[] | undefined) => list ?? [];

/** Search text from named string fields of an aspect: names, titles, descriptions. */
export function textFields(...fields: string[]) {
  return (v: object, add: TextSink) => { for (const f of fields) add((v as Record<string, unknown>)[f]); };
}
/** The fields of a properties aspect that go into the search document. */
export const propertiesText = textFields('name', 'displayName', 'title', 'fullName', 'qualifiedName', 'description', 'definition', 'email');
/** The fields of an editable properties aspect that go into the search document. */
export const editableText = textFields('description', 'displayName');
const lastPart = (u: string) => u.slice(u.lastIndexOf(':') + 1);

// ---------------------------------------------------------------------------------------------------------------
// Shared records

export const auditStamp = rec({ time: int, actor: urn, 'impersonator?': urn, 'message?': str });
export type AuditStamp = Infer<typeof auditStamp>;
/** ChangeAuditStamps (its created and lastModified have defaults, so both may be left out). */
export const changeAuditStampFields = { 'created?': auditStamp, 'lastModified?': auditStamp, 'deleted?': auditStamp } as const;
export const changeAuditStamps = rec(changeAuditStampFields);
/** TimeStamp: when, and optionally who. */
export const timeStamp = rec({ time: int, 'actor?': urn });
export const customPropertiesField = { 'customProperties?': map(str) } as const;
export const externalReferenceField = { 'externalUrl?': str } as const;
export const edge = rec({ 'sourceUrn?': urn, destinationUrn: urn, 'created?': auditStamp, 'lastModified?': auditStamp,
  'properties?': map(str) });
export type Edge = Infer<typeof edge>;
export const fineGrainedLineage = rec({ upstreamType: str, 'upstreams?': arr(urn), downstreamType: str, 'downstreams?': arr(urn),
  'transformOperation?': str, 'confidenceScore?': num, 'query?': urn });

export const calendarInterval = enumOf(['SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR']);
export const timeWindowSize = rec({ unit: calendarInterval, 'multiple?': int });
/** The fields every time-series aspect starts with (TimeseriesAspectBase). */
export const timeseriesFields = {
  timestampMillis: int,
  'eventGranularity?': timeWindowSize,
  'partitionSpec?': rec({ 'type?': enumOf(['FULL_TABLE', 'QUERY', 'PARTITION']), 'partition?': str, 'timePartition?': any }),
  'messageId?': str,
} as const;

export const tagAssociation = rec({ tag: urn, 'context?': str });
export const globalTagsRecord = rec({ tags: arr(tagAssociation) });
export const glossaryTermsRecord = rec({ terms: arr(rec({ urn, 'context?': str })), 'auditStamp?': auditStamp });
export type GlobalTags = Infer<typeof globalTagsRecord>;
export type GlossaryTerms = Infer<typeof glossaryTermsRecord>;

export const schemaFieldRecord = rec({
  fieldPath: str, 'jsonPath?': str, 'nullable?': bool, 'description?': str, 'label?': str, type: rec({ type: union }),
  nativeDataType: str, 'recursive?': bool, 'globalTags?': globalTagsRecord, 'glossaryTerms?': glossaryTermsRecord, 'isPartOfKey?': bool,
  'isPartitioningKey?': bool, 'jsonProps?': str, ...changeAuditStampFields,
});
export type SchemaFieldRecord = Infer<typeof schemaFieldRecord>;

/** Edges of the tags and terms on a column (schemaMetadata and editableSchemaMetadata name them differently). */
function columnLabelEdges(fields: readonly { globalTags?: GlobalTags; glossaryTerms?: GlossaryTerms }[] | undefined,
  tagEdge: string, termEdge: string, add: (type: string, destination: unknown) => void) {
  for (const f of fields ?? []) {
    for (const t of f.globalTags?.tags ?? []) add(tagEdge, t.tag);
    for (const t of f.glossaryTerms?.terms ?? []) add(termEdge, t.urn);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Shared aspects

export const ownership = aspect('ownership', 'com.linkedin.common.Ownership', rec({
  owners: arr(rec({ owner: urn, type: enumOf(OWNERSHIP_TYPES), 'typeUrn?': urn,
    'source?': rec({ type: enumOf(['AUDIT', 'DATABASE', 'FILE_SYSTEM', 'ISSUE_TRACKING_SYSTEM', 'MANUAL', 'SERVICE', 'SOURCE_CONTROL', 'OTHER']), 'url?': str }) })),
  'lastModified?': auditStamp,
}), {
  edges: (v, add) => {
    for (const o of v.owners) {
      add('OwnedBy', o.owner);
      add('ownershipType', o.typeUrn);
    }
  },
  facets: { owners: (v) => v.owners.map((o) => o.owner) },
});
export type Ownership = Infer<typeof ownership.schema>;

export const status = aspect('status', 'com.linkedin.common.Status', rec({ removed: bool }));

export const globalTags = aspect('globalTags', 'com.linkedin.common.GlobalTags', globalTagsRecord, {
  edges: (v, add) => { for (const t of v.tags) add('TaggedWith', t.tag); },
  searchText: (v, add) => { for (const t of v.tags) add(lastPart(t.tag)); },
  facets: { tags: (v) => v.tags.map((t) => t.tag) },
});

export const glossaryTerms = aspect('glossaryTerms', 'com.linkedin.common.GlossaryTerms', glossaryTermsRecord, {
  edges: (v, add) => { for (const t of v.terms) add('TermedWith', t.urn); },
  searchText: (v, add) => { for (const t of v.terms) add(lastPart(t.urn)); },
  facets: { glossaryTerms: (v) => v.terms.map((t) => t.urn) },
});

export const institutionalMemory = aspect('institutionalMemory', 'com.linkedin.common.InstitutionalMemory',
  rec({ elements: arr(rec({ url: str, description: str, createStamp: auditStamp })) }));

export const browsePaths = aspect('browsePaths', 'com.linkedin.common.BrowsePaths', rec({ paths: arr(str) }), {
  facets: { browsePaths: (v) => v.paths },
});

/** A browsePathsV2 path as one keyword, as DataHub indexes it: each step's urn (or id) after a ␟. */
export const browsePathV2Key = (path: readonly { id: string; urn?: string }[]) => path.map((p) => `\u241f${p.urn ?? p.id}`).join('');

export const browsePathsV2 = aspect('browsePathsV2', 'com.linkedin.common.BrowsePathsV2', rec({ path: arr(rec({ id: str, 'urn?': urn })) }), {
  facets: { browsePathV2: (v) => [browsePathV2Key(v.path)] },
});

export const deprecation = aspect('deprecation', 'com.linkedin.common.Deprecation',
  rec({ deprecated: bool, 'decommissionTime?': int, note: str, actor: urn }), { facets: { deprecated: (v) => [String(v.deprecated)] } });

export const subTypes = aspect('subTypes', 'com.linkedin.common.SubTypes', rec({ typeNames: arr(str) }), {
  searchText: (v, add) => { for (const n of v.typeNames) add(n); },
  facets: { typeNames: (v) => v.typeNames },
});

export const dataPlatformInstance = aspect('dataPlatformInstance', 'com.linkedin.common.DataPlatformInstance',
  rec({ platform: urn, 'instance?': urn }), {
    facets: { platform: (v) => [v.platform], platformInstance: (v) => (v.instance ? [v.instance] : []) },
  });

export const container = aspect('container', 'com.linkedin.container.Container', rec({ container: urn }), {
  edges: (v, add) => add('IsPartOf', v.container),
  facets: { container: (v) => [v.container] },
});

export const domains = aspect('domains', 'com.linkedin.domain.Domains', rec({ domains: arr(urn) }), {
  edges: (v, add) => { for (const d of v.domains) add('AssociatedWith', d); },
  facets: { domains: (v) => ids(v.domains) },
});

export const siblings = aspect('siblings', 'com.linkedin.common.Siblings', rec({ siblings: arr(urn), primary: bool }), {
  edges: (v, add) => { for (const s of v.siblings) add('SiblingOf', s); },
});

export const embed = aspect('embed', 'com.linkedin.common.Embed', rec({ 'renderUrl?': str }));

// A union written in the Avro form {fieldDiscriminator, costCode|costId} or as Pegasus {costId|costCode}: an object either way.
export const cost = aspect('cost', 'com.linkedin.common.Cost', rec({ costType: str, cost: rec({}) }));

export const origin = aspect('origin', 'com.linkedin.common.Origin', rec({ type: enumOf(['NATIVE', 'EXTERNAL']), 'externalType?': str }));

export const access = aspect('access', 'com.linkedin.common.Access', rec({ 'roles?': arr(rec({ urn })) }), {
  edges: (v, add) => { for (const r of v.roles ?? []) add('AssociatedWith', r.urn); },
});

const testResult = rec({ test: urn, type: enumOf(['SUCCESS', 'FAILURE']) });
export const testResults = aspect('testResults', 'com.linkedin.test.TestResults', rec({ failing: arr(testResult), passing: arr(testResult) }), {
  edges: (v, add) => {
    for (const r of v.failing) add('IsFailing', r.test);
    for (const r of v.passing) add('IsPassing', r.test);
  },
});

/** The columns a chart or dashboard reads, with their schema where the source knows it. */
export const inputFields = aspect('inputFields', 'com.linkedin.common.InputFields',
  rec({ fields: arr(rec({ schemaFieldUrn: urn, 'schemaField?': schemaFieldRecord })) }), {
    edges: (v, add) => { for (const f of v.fields) add('consumesField', f.schemaFieldUrn); },
  });

export const versionInfo = aspect('versionInfo', 'com.linkedin.datajob.VersionInfo',
  rec({ ...customPropertiesField, ...externalReferenceField, version: str, versionType: str }));

export const schemaMetadata = aspect('schemaMetadata', 'com.linkedin.schema.SchemaMetadata', rec({
  schemaName: str, platform: urn, version: int, ...changeAuditStampFields, 'dataset?': urn, 'cluster?': str, hash: str,
  platformSchema: union, fields: arr(schemaFieldRecord), 'primaryKeys?': arr(str), 'foreignKeysSpecs?': map(any),
  'foreignKeys?': arr(rec({ name: str, foreignFields: arr(urn), sourceFields: arr(urn), foreignDataset: urn })),
}), {
  edges: (v, add) => {
    columnLabelEdges(v.fields, 'SchemaFieldTaggedWith', 'SchemaFieldWithGlossaryTerm', add);
    for (const fk of v.foreignKeys ?? []) {
      for (const f of fk.foreignFields) add('ForeignKeyTo', f);
      add('ForeignKeyToDataset', fk.foreignDataset);
    }
  },
  searchText: (v, add) => { for (const f of v.fields) { add(f.fieldPath); add(f.description); } },
  facets: {
    fieldPaths: (v) => v.fields.map((f) => f.fieldPath),
    fieldTags: (v) => v.fields.flatMap((f) => (f.globalTags?.tags ?? []).map((t) => t.tag)),
    fieldGlossaryTerms: (v) => v.fields.flatMap((f) => (f.glossaryTerms?.terms ?? []).map((t) => t.urn)),
  },
});
export type SchemaMetadata = Infer<typeof schemaMetadata.schema>;

export const editableSchemaMetadata = aspect('editableSchemaMetadata', 'com.linkedin.schema.EditableSchemaMetadata', rec({
  ...changeAuditStampFields,
  editableSchemaFieldInfo: arr(rec({ fieldPath: str, 'description?': str, 'globalTags?': globalTagsRecord, 'glossaryTerms?': glossaryTermsRecord })),
}), {
  edges: (v, add) => columnLabelEdges(v.editableSchemaFieldInfo, 'EditableSchemaFieldTaggedWith', 'EditableSchemaFieldWithGlossaryTerm', add),
  searchText: (v, add) => { for (const f of v.editableSchemaFieldInfo) add(f.description); },
  facets: {
    editedFieldTags: (v) => v.editableSchemaFieldInfo.flatMap((f) => (f.globalTags?.tags ?? []).map((t) => t.tag)),
    editedFieldGlossaryTerms: (v) => v.editableSchemaFieldInfo.flatMap((f) => (f.glossaryTerms?.terms ?? []).map((t) => t.urn)),
  },
});
export type EditableSchemaMetadata = Infer<typeof editableSchemaMetadata.schema>;


// ---------------------------------------------------------------------------------------------------------------
// Records the ML entity types share

export const versionTag = rec({ 'versionTag?': str });
export const mlFeatureDataType = enumOf(['USELESS', 'NOMINAL', 'ORDINAL', 'BINARY', 'COUNT', 'TIME', 'INTERVAL', 'IMAGE', 'VIDEO', 'AUDIO',
  'TEXT', 'MAP', 'SEQUENCE', 'SET', 'CONTINUOUS', 'BYTE', 'UNKNOWN']);
/** The editable properties of the ML entity types: a description. */
export const editableDescription = rec({ 'description?': str });
