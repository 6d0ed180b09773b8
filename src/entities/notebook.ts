import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { arr, enumOf, rec, str } from './schema.js';

export const notebookKey = keyAspect('notebookKey', 'com.linkedin.metadata.key.NotebookKey',
  [['notebookTool', 'string'], ['notebookId', 'string']]);

export const notebookInfo = aspect('notebookInfo', 'com.linkedin.notebook.NotebookInfo', rec({
  ...shared.customPropertiesField, ...shared.externalReferenceField, title: str, 'description?': str,
  changeAuditStamps: shared.changeAuditStamps,
}), { searchText: shared.propertiesText });

const cellFields = { 'cellTitle?': str, cellId: str, changeAuditStamps: shared.changeAuditStamps } as const;

export const notebookContent = aspect('notebookContent', 'com.linkedin.notebook.NotebookContent', rec({
  'cells?': arr(rec({
    'textCell?': rec({ ...cellFields, text: str }),
    'queryCell?': rec({ ...cellFields, rawQuery: str, 'lastExecuted?': shared.auditStamp }),
    'chartCell?': rec(cellFields),
    type: enumOf(['TEXT_CELL', 'QUERY_CELL', 'CHART_CELL']),
  })),
}));

export const editableNotebookProperties = aspect('editableNotebookProperties', 'com.linkedin.notebook.EditableNotebookProperties',
  rec({ ...shared.changeAuditStampFields, 'description?': str }), { searchText: shared.editableText });

/** Notebooks (Hex, Mode…): text, queries and charts together. */
export const notebook = defineEntity({
  name: 'notebook',
  category: 'core',
  key: notebookKey,
  aspects: [notebookInfo, notebookContent, editableNotebookProperties, shared.ownership, shared.status, shared.globalTags,
    shared.glossaryTerms, shared.browsePaths, shared.institutionalMemory, shared.domains, shared.subTypes, shared.dataPlatformInstance,
    shared.browsePathsV2],
  // Accepted before the registry followed DataHub 0.12.1 exactly; kept so existing pipelines keep working.
  almanacAspects: [shared.container, shared.deprecation, shared.testResults],
  graphql: { entityType: 'NOTEBOOK' },
  search: {},
  platform: (k) => (k.notebookTool ? `urn:li:dataPlatform:${k.notebookTool}` : undefined),
  edits: { description: { aspect: editableNotebookProperties, field: 'description' } },
});
