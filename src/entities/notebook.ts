import { aspect, defineEntity, gql, keyAspect, ref } from './descriptor.js';
import { auditStamp, COMMON_FIELDS, customProperties } from './graphql-fields.js';
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

// ---------------------------------------------------------------------------------------------------------------
// GraphQL

type Stamps = { created?: { time?: number; actor?: string }; lastModified?: { time?: number; actor?: string };
  deleted?: { time?: number; actor?: string } } | undefined;

function changeStamps(s: Stamps) {
  return s ? { created: auditStamp(s.created), lastModified: auditStamp(s.lastModified), deleted: s.deleted ? auditStamp(s.deleted) : null } : null;
}

type Cell = { cellTitle?: string; cellId: string; changeAuditStamps: Stamps };
const cellOut = (c: Cell | undefined, extra: (c: any) => Record<string, unknown> = () => ({})) =>
  c ? { cellTitle: c.cellTitle ?? '', cellId: c.cellId, changeAuditStamps: changeStamps(c.changeAuditStamps), ...extra(c) } : null;

const SDL = gql`
type Notebook implements Entity & BrowsableEntity {
  urn: String!
  type: EntityType!
  "The notebook tool: the first part of the urn (hex, mode, querybook)."
  tool: String!
  notebookId: String!
  info: NotebookInfo
  editableProperties: NotebookEditableProperties
  ownership: Ownership
  status: Status
  content: NotebookContent!
  tags: GlobalTags
  institutionalMemory: InstitutionalMemory
  domain: DomainAssociation
  dataPlatformInstance: DataPlatformInstance
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
  subTypes: SubTypes
  glossaryTerms: GlossaryTerms
  platform: DataPlatform!
  browsePaths: [BrowsePath!]
  browsePathV2: BrowsePathV2
  exists: Boolean
  privileges: EntityPrivileges
  "When metadata of this notebook was last ingested (from system metadata)."
  lastIngested: Long
}

type NotebookInfo {
  title: String
  description: String
  externalUrl: String
  customProperties: [CustomPropertiesEntry!]
  changeAuditStamps: ChangeAuditStamps
}

type NotebookEditableProperties {
  description: String
}

type NotebookContent {
  cells: [NotebookCell!]!
}

type NotebookCell {
  chartCell: ChartCell
  textCell: TextCell
  "DataHub's spelling."
  queryChell: QueryCell
  type: NotebookCellType!
}

type TextCell {
  cellTitle: String!
  cellId: String!
  changeAuditStamps: ChangeAuditStamps
  text: String!
}

type QueryCell {
  cellTitle: String!
  cellId: String!
  changeAuditStamps: ChangeAuditStamps
  rawQuery: String!
  lastExecuted: AuditStamp
}

type ChartCell {
  cellTitle: String!
  cellId: String!
  changeAuditStamps: ChangeAuditStamps
}

enum NotebookCellType { TEXT_CELL QUERY_CELL CHART_CELL }
`;

/** Notebooks (Hex, Mode…): text, queries and charts together. */
export const notebook = defineEntity({
  name: 'notebook',
  category: 'core',
  display: { label: 'Notebook', rank: 190 },
  key: notebookKey,
  aspects: [notebookInfo, notebookContent, editableNotebookProperties, shared.ownership, shared.status, shared.globalTags,
    shared.glossaryTerms, shared.browsePaths, shared.institutionalMemory, shared.domains, shared.subTypes, shared.dataPlatformInstance,
    shared.browsePathsV2],
  // Accepted before the registry followed DataHub 0.12.1 exactly; kept so existing pipelines keep working.
  almanacAspects: [shared.container, shared.deprecation, shared.testResults],
  graphql: {
    entityType: 'NOTEBOOK',
    objectType: 'Notebook',
    sdl: SDL,
    rootField: 'notebook',
    fields: {
      ...COMMON_FIELDS,
      tool: (f) => f.key.notebookTool,
      notebookId: (f) => f.key.notebookId,
      // The platform of the dataPlatformInstance aspect, as DataHub maps it; else the tool's platform.
      platform: async (f) => ref((await f.aspect(shared.dataPlatformInstance))?.platform ?? `urn:li:dataPlatform:${f.key.notebookTool}`),
      info: async (f) => {
        const i = await f.aspect(notebookInfo);
        return i ? { title: i.title, description: i.description ?? null, externalUrl: i.externalUrl ?? null,
          customProperties: customProperties(i.customProperties, f.urn), changeAuditStamps: changeStamps(i.changeAuditStamps) } : null;
      },
      editableProperties: async (f) => {
        const e = await f.aspect(editableNotebookProperties);
        return e ? { description: e.description ?? null } : null;
      },
      // DataHub answers an empty notebook (no content aspect) with no cells.
      content: async (f) => ({
        cells: ((await f.aspect(notebookContent))?.cells ?? []).map((c) => ({
          type: c.type,
          // Only the cell its type names, as DataHub answers.
          textCell: c.type === 'TEXT_CELL' ? cellOut(c.textCell, (t) => ({ text: t.text })) : null,
          queryChell: c.type === 'QUERY_CELL'
            ? cellOut(c.queryCell, (q) => ({ rawQuery: q.rawQuery, lastExecuted: q.lastExecuted ? auditStamp(q.lastExecuted) : null })) : null,
          chartCell: c.type === 'CHART_CELL' ? cellOut(c.chartCell) : null,
        })),
      }),
    },
  },
  search: {},
  // DataHub 0.12.1 gives the types it has no rule for an empty default browse path.
  browsePath: () => '',
  platform: (k) => (k.notebookTool ? `urn:li:dataPlatform:${k.notebookTool}` : undefined),
  edits: { description: { aspect: editableNotebookProperties, field: 'description' } },
});
