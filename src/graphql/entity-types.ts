import { tryParseUrn } from '../model/urn.js';
import { lookupTable } from '../model/safe-keys.js';

/** Registry entity type → GraphQL EntityType enum value and object type name. */
const TYPES: Readonly<Record<string, [enumValue: string, typeName: string]>> = lookupTable<[enumValue: string, typeName: string]>({
  dataset: ['DATASET', 'Dataset'],
  corpuser: ['CORP_USER', 'CorpUser'],
  corpGroup: ['CORP_GROUP', 'CorpGroup'],
  dataPlatform: ['DATA_PLATFORM', 'DataPlatform'],
  tag: ['TAG', 'Tag'],
  glossaryTerm: ['GLOSSARY_TERM', 'GlossaryTerm'],
  glossaryNode: ['GLOSSARY_NODE', 'GlossaryNode'],
  container: ['CONTAINER', 'Container'],
  domain: ['DOMAIN', 'Domain'],
  ownershipType: ['CUSTOM_OWNERSHIP_TYPE', 'OwnershipTypeEntity'],
  schemaField: ['SCHEMA_FIELD', 'SchemaFieldEntity'],
  chart: ['CHART', 'GenericEntity'],
  dashboard: ['DASHBOARD', 'GenericEntity'],
  dataFlow: ['DATA_FLOW', 'GenericEntity'],
  dataJob: ['DATA_JOB', 'GenericEntity'],
  test: ['TEST', 'Test'],
  dataHubAccessToken: ['ACCESS_TOKEN', 'GenericEntity'],
  dataHubPolicy: ['DATAHUB_POLICY', 'GenericEntity'],
  dataHubRole: ['DATAHUB_ROLE', 'GenericEntity'],
  mlModel: ['MLMODEL', 'GenericEntity'],
  mlModelGroup: ['MLMODEL_GROUP', 'GenericEntity'],
  mlFeatureTable: ['MLFEATURE_TABLE', 'GenericEntity'],
  mlFeature: ['MLFEATURE', 'GenericEntity'],
  mlPrimaryKey: ['MLPRIMARY_KEY', 'GenericEntity'],
  assertion: ['ASSERTION', 'GenericEntity'],
  dataProcessInstance: ['DATA_PROCESS_INSTANCE', 'GenericEntity'],
  notebook: ['NOTEBOOK', 'GenericEntity'],
  dataProduct: ['DATA_PRODUCT', 'GenericEntity'],
});

function entityTypeOf(urn: string): string {
  const u = tryParseUrn(urn);
  return typeof u === 'string' ? '' : u.entityType;
}

export function graphqlEntityType(urn: string): string {
  return TYPES[entityTypeOf(urn)]?.[0] ?? 'OTHER';
}

export function graphqlTypeName(urn: string): string {
  return TYPES[entityTypeOf(urn)]?.[1] ?? 'GenericEntity';
}

const BY_ENUM = new Map(Object.entries(TYPES).map(([entityType, [enumValue]]) => [enumValue, entityType]));

/** GraphQL EntityType enum value → registry entity type (`DATASET` → `dataset`). */
export function entityTypeOfEnum(enumValue: string): string | undefined {
  return BY_ENUM.get(enumValue);
}
