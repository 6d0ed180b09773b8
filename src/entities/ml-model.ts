import { aspect, defineEntity, keyAspect } from './descriptor.js';
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

/** Trained ML models. */
export const mlModel = defineEntity({
  name: 'mlModel',
  category: 'core',
  key: mlModelKey,
  aspects: [shared.glossaryTerms, editableMlModelProperties, shared.domains, shared.ownership, mlModelProperties, intendedUse,
    mlModelFactorPrompts, mlModelMetrics, mlModelEvaluationData, mlModelTrainingData, mlModelQuantitativeAnalyses,
    mlModelEthicalConsiderations, mlModelCaveatsAndRecommendations, shared.institutionalMemory, sourceCode, shared.status, shared.cost,
    shared.deprecation, shared.browsePaths, shared.globalTags, shared.dataPlatformInstance, shared.browsePathsV2],
  // Accepted before the registry followed DataHub 0.12.1 exactly; kept so existing pipelines keep working.
  almanacAspects: [shared.container, shared.subTypes, shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.MLModelSnapshot',
  graphql: { entityType: 'MLMODEL' },
  search: {},
  platform: (k) => k.platform,
  edits: { description: { aspect: editableMlModelProperties, field: 'description' } },
});
