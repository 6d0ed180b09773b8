/**
 * Entity types as the UI names them: the GraphQL EntityType, the urn's type segment (which is also the first
 * segment of an entity page's path: /dataset/<urn>), and a label.
 */
export interface EntityTypeInfo {
  type: string;
  segment: string;
  label: string;
  plural: string;
}

export const ENTITY_TYPES: EntityTypeInfo[] = [
  { type: 'DATASET', segment: 'dataset', label: 'Dataset', plural: 'Datasets' },
  { type: 'CHART', segment: 'chart', label: 'Chart', plural: 'Charts' },
  { type: 'DASHBOARD', segment: 'dashboard', label: 'Dashboard', plural: 'Dashboards' },
  { type: 'DATA_JOB', segment: 'dataJob', label: 'Task', plural: 'Tasks' },
  { type: 'DATA_FLOW', segment: 'dataFlow', label: 'Pipeline', plural: 'Pipelines' },
  { type: 'CONTAINER', segment: 'container', label: 'Container', plural: 'Containers' },
  { type: 'DOMAIN', segment: 'domain', label: 'Domain', plural: 'Domains' },
  { type: 'DATA_PRODUCT', segment: 'dataProduct', label: 'Data product', plural: 'Data products' },
  { type: 'TAG', segment: 'tag', label: 'Tag', plural: 'Tags' },
  { type: 'GLOSSARY_TERM', segment: 'glossaryTerm', label: 'Glossary term', plural: 'Glossary terms' },
  { type: 'GLOSSARY_NODE', segment: 'glossaryNode', label: 'Term group', plural: 'Term groups' },
  { type: 'CORP_USER', segment: 'corpuser', label: 'User', plural: 'Users' },
  { type: 'CORP_GROUP', segment: 'corpGroup', label: 'Group', plural: 'Groups' },
  { type: 'MLMODEL', segment: 'mlModel', label: 'ML model', plural: 'ML models' },
  { type: 'MLMODEL_GROUP', segment: 'mlModelGroup', label: 'ML model group', plural: 'ML model groups' },
  { type: 'MLFEATURE_TABLE', segment: 'mlFeatureTable', label: 'Feature table', plural: 'Feature tables' },
  { type: 'MLFEATURE', segment: 'mlFeature', label: 'ML feature', plural: 'ML features' },
  { type: 'MLPRIMARY_KEY', segment: 'mlPrimaryKey', label: 'ML primary key', plural: 'ML primary keys' },
  { type: 'NOTEBOOK', segment: 'notebook', label: 'Notebook', plural: 'Notebooks' },
  { type: 'DATA_PLATFORM', segment: 'dataPlatform', label: 'Platform', plural: 'Platforms' },
];

const byType = new Map(ENTITY_TYPES.map((t) => [t.type, t]));
const bySegment = new Map(ENTITY_TYPES.map((t) => [t.segment.toLowerCase(), t]));

export const typeInfo = (type: string): EntityTypeInfo =>
  byType.get(type) ?? { type, segment: type.toLowerCase(), label: type.charAt(0) + type.slice(1).toLowerCase().replace(/_/g, ' '), plural: type };

/** The urn's entity type segment: urn:li:dataset:(…) → dataset. */
export const urnSegment = (urn: string) => /^urn:li:([A-Za-z]+):/.exec(urn)?.[1] ?? 'entity';

export const typeOfUrn = (urn: string): EntityTypeInfo | undefined => bySegment.get(urnSegment(urn).toLowerCase());

/** The in-app path of an entity's page. */
export const entityPath = (urn: string, tab?: string) =>
  `/${urnSegment(urn)}/${encodeURIComponent(urn)}${tab ? `/${encodeURIComponent(tab)}` : ''}`;
