import { decodeUrnPart } from '../model/urn.js';
import { aspect, defineEntity, gql, keyAspect, ref, type FieldContext } from './descriptor.js';
import { COMMON_FIELDS, customProperties, descriptionFor, hasProperties } from './graphql-fields.js';
import * as shared from './shared-aspects.js';
import { any, arr, bool, enumOf, int, map, oneOf, rec, str, union, urn } from './schema.js';

export const mlModelKey = keyAspect('mlModelKey', 'com.linkedin.metadata.key.MLModelKey', [['platform', 'urn'], ['name', 'string'], ['origin', 'fabric']]);

const metric = rec({ name: str, 'description?': str, 'value?': str, 'createdAt?': int });

export const mlModelProperties = aspect('mlModelProperties', 'com.linkedin.ml.metadata.MLModelProperties', rec({
  ...shared.customPropertiesField, ...shared.externalReferenceField, 'description?': str, 'date?': int, 'version?': shared.versionTag,
  'type?': str, 'hyperParameters?': map(any), 'hyperParams?': arr(metric), 'trainingMetrics?': arr(metric), 'onlineMetrics?': arr(metric),
  'mlFeatures?': arr(urn), 'tags?': arr(str), 'deployments?': arr(urn), 'trainingJobs?': arr(urn), 'downstreamJobs?': arr(urn),
  'groups?': arr(urn),
}), {
  edges: (v, add) => {
    for (const u of v.mlFeatures ?? []) add('Consumes', u);
    for (const u of v.deployments ?? []) add('DeployedTo', u);
    for (const u of v.trainingJobs ?? []) add('TrainedBy', u);
    for (const u of v.downstreamJobs ?? []) add('UsedBy', u);
    for (const u of v.groups ?? []) add('MemberOf', u);
  },
  searchText: shared.propertiesText,
});

export const editableMlModelProperties = aspect('editableMlModelProperties', 'com.linkedin.ml.metadata.EditableMLModelProperties',
  shared.editableDescription, { searchText: shared.editableText });

export const intendedUse = aspect('intendedUse', 'com.linkedin.ml.metadata.IntendedUse', rec({
  'primaryUses?': arr(str), 'primaryUsers?': arr(enumOf(['ENTERPRISE', 'HOBBY', 'ENTERTAINMENT'])), 'outOfScopeUses?': arr(str),
}));

const factors = rec({ 'groups?': arr(str), 'instrumentation?': arr(str), 'environment?': arr(str) });

export const mlModelFactorPrompts = aspect('mlModelFactorPrompts', 'com.linkedin.ml.metadata.MLModelFactorPrompts',
  rec({ 'relevantFactors?': arr(factors), 'evaluationFactors?': arr(factors) }));

export const mlModelMetrics = aspect('mlModelMetrics', 'com.linkedin.ml.metadata.Metrics',
  rec({ 'performanceMeasures?': arr(str), 'decisionThreshold?': arr(str) }));

const baseData = rec({ dataset: urn, 'motivation?': str, 'preProcessing?': arr(str) });

export const mlModelEvaluationData = aspect('mlModelEvaluationData', 'com.linkedin.ml.metadata.EvaluationData',
  rec({ evaluationData: arr(baseData) }));

export const mlModelTrainingData = aspect('mlModelTrainingData', 'com.linkedin.ml.metadata.TrainingData',
  rec({ trainingData: arr(baseData) }));

/** ResultsType is a union with one string member: plain after normalising, or still wrapped. */
const results = oneOf(str, union);

export const mlModelQuantitativeAnalyses = aspect('mlModelQuantitativeAnalyses', 'com.linkedin.ml.metadata.QuantitativeAnalyses',
  rec({ 'unitaryResults?': results, 'intersectionalResults?': results }));

export const mlModelEthicalConsiderations = aspect('mlModelEthicalConsiderations', 'com.linkedin.ml.metadata.EthicalConsiderations',
  rec({ 'data?': arr(str), 'humanLife?': arr(str), 'mitigations?': arr(str), 'risksAndHarms?': arr(str), 'useCases?': arr(str) }));

export const mlModelCaveatsAndRecommendations = aspect('mlModelCaveatsAndRecommendations',
  'com.linkedin.ml.metadata.CaveatsAndRecommendations', rec({
    'caveats?': rec({ 'needsFurtherTesting?': bool, 'caveatDescription?': str, 'groupsNotRepresented?': arr(str) }),
    'recommendations?': str, 'idealDatasetCharacteristics?': arr(str),
  }));

export const sourceCode = aspect('sourceCode', 'com.linkedin.ml.metadata.SourceCode', rec({
  sourceCode: arr(rec({ type: enumOf(['ML_MODEL_SOURCE_CODE', 'TRAINING_PIPELINE_SOURCE_CODE', 'EVALUATION_PIPELINE_SOURCE_CODE']),
    sourceCodeUrl: str })),
}));

// ---------------------------------------------------------------------------------------------------------------
// GraphQL (the helpers below serve the other ML types too)

/** A key part as text (urn tuple parts are stored percent-encoded where they must be). */
export const keyPart = (f: FieldContext, name: string) => decodeUrnPart(f.key[name] ?? '');

export const versionTag = (v: { versionTag?: string } | undefined) => (v ? { versionTag: v.versionTag ?? null } : null);

/** Fields every ML type maps alike: the shared aspects, with tags only under `tags` where DataHub has no `globalTags`. */
export const ML_COMMON_FIELDS = { ...COMMON_FIELDS };

const BOXES: Readonly<Record<string, (v: unknown) => Record<string, unknown>>> = {
  string: (v) => ({ __typename: 'StringBox', stringValue: String(v) }),
  int: (v) => ({ __typename: 'IntBox', intValue: Number(v) }),
  long: (v) => ({ __typename: 'IntBox', intValue: Number(v) }),
  float: (v) => ({ __typename: 'FloatBox', floatValue: Number(v) }),
  double: (v) => ({ __typename: 'FloatBox', floatValue: Number(v) }),
  boolean: (v) => ({ __typename: 'BooleanBox', booleanValue: Boolean(v) }),
};

/** A HyperParameterValueType: Pegasus's `{"double": 0.1}` form or a plain JSON value. */
function hyperParameterValue(v: unknown) {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const [member, inner] = Object.entries(v)[0] ?? [];
    const box = BOXES[member?.split('.').pop() ?? ''];
    return box ? box(inner) : BOXES.string!(JSON.stringify(v));
  }
  if (typeof v === 'boolean') return BOXES.boolean!(v);
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 31 ? BOXES.int!(v) : BOXES.float!(v);
  return BOXES.string!(v);
}

/** ResultsType's only member is a string: a plain string after normalising, or still `{"string": …}`. */
function resultsType(v: string | Record<string, unknown> | undefined) {
  if (v === undefined) return null;
  const text = typeof v === 'string' ? v : Object.values(v)[0];
  return { __typename: 'StringBox', stringValue: text == null ? '' : String(text) };
}

const metricOut = (m: { name: string; description?: string; value?: string; createdAt?: number }) =>
  ({ name: m.name, description: m.description ?? null, value: m.value ?? null, createdAt: m.createdAt ?? null });

const baseDataOut = (d: { dataset: string; motivation?: string; preProcessing?: string[] }) =>
  ({ dataset: d.dataset, motivation: d.motivation ?? null, preProcessing: d.preProcessing ?? null });

const factorsOut = (x: { groups?: string[]; instrumentation?: string[]; environment?: string[] }) =>
  ({ groups: x.groups ?? null, instrumentation: x.instrumentation ?? null, environment: x.environment ?? null });

/** Cost's value is a union written as Pegasus `{costId|costCode}` or Avro `{fieldDiscriminator, costId|costCode}`. */
function costOut(c: { costType: string; cost: Record<string, unknown> } | undefined) {
  if (!c) return null;
  const v = c.cost as { costId?: unknown; costCode?: unknown };
  return { costType: c.costType, costValue: { costId: typeof v.costId === 'number' ? v.costId : v.costId != null ? Number(v.costId) : null,
    costCode: v.costCode != null ? String(v.costCode) : null } };
}

const SDL = gql`
type MLModel implements EntityWithRelationships & Entity & BrowsableEntity {
  urn: String!
  type: EntityType!
  "When metadata of this model was last ingested (from system metadata)."
  lastIngested: Long
  name: String!
  platform: DataPlatform!
  origin: FabricType!
  "The ingested description (mlModelProperties); the edited one is under editableProperties."
  description: String
  globalTags: GlobalTags @deprecated(reason: "Use tags")
  tags: GlobalTags
  ownership: Ownership
  properties: MLModelProperties
  intendedUse: IntendedUse
  factorPrompts: MLModelFactorPrompts
  metrics: Metrics
  evaluationData: [BaseData!]
  trainingData: [BaseData!]
  quantitativeAnalyses: QuantitativeAnalyses
  ethicalConsiderations: EthicalConsiderations
  caveatsAndRecommendations: CaveatsAndRecommendations
  institutionalMemory: InstitutionalMemory
  sourceCode: SourceCode
  status: Status
  cost: Cost
  deprecation: Deprecation
  dataPlatformInstance: DataPlatformInstance
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
  "One hop: features consumed and training jobs upstream; groups and jobs using the model downstream."
  lineage(input: LineageInput!): EntityLineageResult
  browsePaths: [BrowsePath!]
  browsePathV2: BrowsePathV2
  glossaryTerms: GlossaryTerms
  domain: DomainAssociation
  editableProperties: MLModelEditableProperties
  exists: Boolean
}

type MLModelProperties {
  "On /api/graphql the description users see: the edited text where one exists, else the ingested one (an Almanac difference). On /api/v2/graphql (DataHub's web app) the ingested one, as in DataHub; the edited one is in editableProperties."
  description: String
  date: Long
  version: String
  type: String
  "Every entry of the hyperParameters map (DataHub 0.12.1 declares one entry and leaves it empty; an Almanac difference)."
  hyperParameters: [HyperParameterMap]
  hyperParams: [MLHyperParam]
  trainingMetrics: [MLMetric]
  mlFeatures: [String!]
  tags: [String!]
  groups: [MLModelGroup]
  customProperties: [CustomPropertiesEntry!]
  externalUrl: String
}

type MLModelEditableProperties {
  description: String
}

type MLHyperParam {
  name: String
  description: String
  value: String
  createdAt: Long
}

type MLMetric {
  name: String
  description: String
  value: String
  createdAt: Long
}

type HyperParameterMap {
  key: String!
  value: HyperParameterValueType!
}

union HyperParameterValueType = StringBox | IntBox | FloatBox | BooleanBox

type StringBox {
  stringValue: String!
}

type IntBox {
  intValue: Int!
}

type FloatBox {
  floatValue: Float!
}

type BooleanBox {
  booleanValue: Boolean!
}

type VersionTag {
  versionTag: String
}

enum MLFeatureDataType {
  USELESS NOMINAL ORDINAL BINARY COUNT TIME INTERVAL IMAGE VIDEO AUDIO TEXT MAP SEQUENCE SET CONTINUOUS BYTE UNKNOWN
}

type IntendedUse {
  primaryUses: [String!]
  primaryUsers: [IntendedUserType!]
  outOfScopeUses: [String!]
}

enum IntendedUserType { ENTERPRISE HOBBY ENTERTAINMENT }

type MLModelFactorPrompts {
  relevantFactors: [MLModelFactors!]
  evaluationFactors: [MLModelFactors!]
}

type MLModelFactors {
  groups: [String!]
  instrumentation: [String!]
  environment: [String!]
}

type Metrics {
  performanceMeasures: [String!]
  decisionThreshold: [String!]
}

type BaseData {
  dataset: String!
  motivation: String
  preProcessing: [String!]
}

type QuantitativeAnalyses {
  unitaryResults: ResultsType
  intersectionalResults: ResultsType
}

union ResultsType = StringBox

type EthicalConsiderations {
  data: [String!]
  humanLife: [String!]
  mitigations: [String!]
  risksAndHarms: [String!]
  useCases: [String!]
}

type CaveatsAndRecommendations {
  caveats: CaveatDetails
  recommendations: String
  idealDatasetCharacteristics: [String!]
}

type CaveatDetails {
  needsFurtherTesting: Boolean
  caveatDescription: String
  groupsNotRepresented: [String!]
}

type SourceCode {
  sourceCode: [SourceCodeUrl!]
}

type SourceCodeUrl {
  type: SourceCodeUrlType!
  sourceCodeUrl: String!
}

enum SourceCodeUrlType { ML_MODEL_SOURCE_CODE TRAINING_PIPELINE_SOURCE_CODE EVALUATION_PIPELINE_SOURCE_CODE }

type Cost {
  costType: CostType!
  costValue: CostValue!
}

type CostValue {
  costId: Float
  costCode: String
}

enum CostType { ORG_COST_TYPE }
`;

/** Trained ML models. */
export const mlModel = defineEntity({
  name: 'mlModel',
  category: 'core',
  display: { label: 'ML model', rank: 140 },
  // mlModelProperties: features (Consumes) and training jobs (TrainedBy) upstream; jobs using it (UsedBy) and its groups (MemberOf) downstream.
  lineage: {
    upstream: [{ type: 'Consumes', entityTypes: ['mlFeature'] }, { type: 'TrainedBy', entityTypes: ['dataJob'] }],
    downstream: [{ type: 'UsedBy', entityTypes: ['dataJob'] }, { type: 'MemberOf', entityTypes: ['mlModelGroup'] }],
  },
  key: mlModelKey,
  aspects: [shared.glossaryTerms, editableMlModelProperties, shared.domains, shared.ownership, mlModelProperties, intendedUse,
    mlModelFactorPrompts, mlModelMetrics, mlModelEvaluationData, mlModelTrainingData, mlModelQuantitativeAnalyses,
    mlModelEthicalConsiderations, mlModelCaveatsAndRecommendations, shared.institutionalMemory, sourceCode, shared.status, shared.cost,
    shared.deprecation, shared.browsePaths, shared.globalTags, shared.dataPlatformInstance, shared.browsePathsV2],
  // Accepted before the registry followed DataHub 0.12.1 exactly; kept so existing pipelines keep working.
  almanacAspects: [shared.container, shared.subTypes, shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.MLModelSnapshot',
  graphql: {
    entityType: 'MLMODEL',
    objectType: 'MLModel',
    rootField: 'mlModel',
    sdl: SDL,
    fields: {
      ...ML_COMMON_FIELDS,
      name: (f) => keyPart(f, 'name'),
      platform: (f) => ref(f.key.platform!),
      origin: (f) => f.key.origin,
      description: async (f) => (await f.aspect(mlModelProperties))?.description ?? null,
      properties: async (f) => {
        const [p, e] = await Promise.all([f.aspect(mlModelProperties), f.aspect(editableMlModelProperties)]);
        if (!hasProperties(f, p, e)) return null;
        return {
          description: descriptionFor(f, e?.description, p?.description),
          date: p?.date ?? null,
          version: p?.version?.versionTag ?? null,
          type: p?.type ?? null,
          hyperParameters: p?.hyperParameters
            ? Object.entries(p.hyperParameters).map(([key, value]) => ({ key, value: hyperParameterValue(value) })) : null,
          hyperParams: p?.hyperParams?.map(metricOut) ?? null,
          trainingMetrics: p?.trainingMetrics?.map(metricOut) ?? null,
          mlFeatures: p?.mlFeatures ?? null,
          tags: p?.tags ?? null,
          groups: p?.groups?.map(ref) ?? null,
          customProperties: customProperties(p?.customProperties ?? {}, f.urn),
          externalUrl: p?.externalUrl ?? null,
        };
      },
      editableProperties: async (f) => {
        const e = await f.aspect(editableMlModelProperties);
        return e ? { description: e.description ?? null } : null;
      },
      intendedUse: async (f) => {
        const u = await f.aspect(intendedUse);
        return u ? { primaryUses: u.primaryUses ?? null, primaryUsers: u.primaryUsers ?? null, outOfScopeUses: u.outOfScopeUses ?? null } : null;
      },
      factorPrompts: async (f) => {
        const p = await f.aspect(mlModelFactorPrompts);
        return p ? { relevantFactors: p.relevantFactors?.map(factorsOut) ?? null, evaluationFactors: p.evaluationFactors?.map(factorsOut) ?? null } : null;
      },
      metrics: async (f) => {
        const m = await f.aspect(mlModelMetrics);
        return m ? { performanceMeasures: m.performanceMeasures ?? null, decisionThreshold: m.decisionThreshold ?? null } : null;
      },
      evaluationData: async (f) => (await f.aspect(mlModelEvaluationData))?.evaluationData.map(baseDataOut) ?? null,
      trainingData: async (f) => (await f.aspect(mlModelTrainingData))?.trainingData.map(baseDataOut) ?? null,
      quantitativeAnalyses: async (f) => {
        const q = await f.aspect(mlModelQuantitativeAnalyses);
        return q ? { unitaryResults: resultsType(q.unitaryResults), intersectionalResults: resultsType(q.intersectionalResults) } : null;
      },
      ethicalConsiderations: async (f) => {
        const e = await f.aspect(mlModelEthicalConsiderations);
        return e ? { data: e.data ?? null, humanLife: e.humanLife ?? null, mitigations: e.mitigations ?? null,
          risksAndHarms: e.risksAndHarms ?? null, useCases: e.useCases ?? null } : null;
      },
      caveatsAndRecommendations: async (f) => {
        const c = await f.aspect(mlModelCaveatsAndRecommendations);
        if (!c) return null;
        return {
          caveats: c.caveats ? { needsFurtherTesting: c.caveats.needsFurtherTesting ?? null, caveatDescription: c.caveats.caveatDescription ?? null,
            groupsNotRepresented: c.caveats.groupsNotRepresented ?? null } : null,
          recommendations: c.recommendations ?? null,
          idealDatasetCharacteristics: c.idealDatasetCharacteristics ?? null,
        };
      },
      sourceCode: async (f) => {
        const s = await f.aspect(sourceCode);
        return s ? { sourceCode: s.sourceCode.map((u) => ({ type: u.type, sourceCodeUrl: u.sourceCodeUrl })) } : null;
      },
      cost: async (f) => costOut(await f.aspect(shared.cost)),
    },
  },
  // The environment is one of DataHub's filters of ML models (MLModelKey.origin).
  search: { facets: { origin: (k) => (k.origin ? [k.origin] : []) } },
  // DataHub 0.12.1 gives the types it has no rule for an empty default browse path.
  browsePath: () => '',
  platform: (k) => k.platform,
  edits: { description: { aspect: editableMlModelProperties, field: 'description' } },
});
