import { useMemo, useState } from 'react';
import type { EntityTabProps } from '../../entityTabs';
import { ADD_TAG, ADD_TERM, REMOVE_TAG, REMOVE_TERM, UPDATE_CHART_DOC, UPDATE_DASHBOARD_DOC, UPDATE_DATA_FLOW_DOC, UPDATE_DATA_JOB_DOC, UPDATE_DESCRIPTION,
  UPDATE_NOTEBOOK_DOC, type DocVariables } from '../../graphql/entity';
import type { TypedDocument } from '../../gql';
import { EditableMarkdown } from '../../components/Editable';
import { Picker } from '../../components/Picker';
import { Highlight } from '../../components/EntityBits';
import { documentationOf, useEntityMutation } from './mutate';
import { TagList, TermList } from '../../components/TagTermLists';
import { Related } from './Related';
import { OtherAspects } from './OtherAspects';

const OWN_DOC_MUTATION: Record<string, TypedDocument<Record<string, { urn: string } | null>, DocVariables>> = {
  CHART: UPDATE_CHART_DOC, DASHBOARD: UPDATE_DASHBOARD_DOC, DATA_FLOW: UPDATE_DATA_FLOW_DOC, DATA_JOB: UPDATE_DATA_JOB_DOC, NOTEBOOK: UPDATE_NOTEBOOK_DOC,
};
const NO_DOC_EDIT = new Set(['CORP_USER', 'DATA_PLATFORM']);

/** Documentation (Markdown, edited in place), a dataset's schema, and the custom properties. */
export default function OverviewTab({ urn, type, entity }: EntityTabProps) {
  const mutate = useEntityMutation(urn);
  const ownMutation = OWN_DOC_MUTATION[type];
  // Users and platforms have no documentation the API edits.
  const canEdit = !NO_DOC_EDIT.has(type) && (entity.privileges?.canEditDescription ?? true);
  const saveDoc = (description: string) => (ownMutation
    ? mutate(ownMutation, { urn, description })
    : mutate(UPDATE_DESCRIPTION, { input: { description, resourceUrn: urn } }));
  const properties: { key: string; value: string | null }[] = entity.customProps?.customProperties ?? [];
  return (
    <>
      <section className="card" aria-labelledby="doc-h">
        <h2 id="doc-h">Documentation</h2>
        <EditableMarkdown value={documentationOf(entity)} label="Documentation" canEdit={canEdit}
          onSave={saveDoc} />
      </section>
      {type === 'CORP_USER' && <Profile entity={entity} />}
      {type === 'DATASET' && <SchemaTable entity={entity} />}
      <Related urn={urn} type={type} />
      <OtherAspects urn={urn} typename={String(entity.__typename ?? '')} />
      {properties.length > 0 && (
        <section className="card" aria-labelledby="props-h">
          <h2 id="props-h">Properties</h2>
          <dl className="kv">
            {properties.map((p) => (
              <div key={p.key} style={{ display: 'contents' }}>
                <dt>{p.key}</dt>
                <dd>{p.value}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
    </>
  );
}

interface Column {
  fieldPath: string;
  label: string;
  depth: number;
  type: string;
  nullable: boolean;
  key: boolean;
  description: string;
  original: string;
  tags: any[];
  editableTags: Set<string>;
  terms: any[];
  editableTerms: Set<string>;
}

/** A v2 field path ([version=2.0].[type=struct].a.b) as people read it: a.b. */
function readablePath(path: string): string {
  return path.replace(/\[[^\]]*\]\.?/g, '').replace(/\.$/, '') || path;
}

function columnsOf(entity: Record<string, any>): Column[] {
  const edits = new Map<string, any>((entity.editableSchemaMetadata?.editableSchemaFieldInfo ?? []).map((f: any) => [f.fieldPath, f]));
  return (entity.schemaMetadata?.fields ?? []).map((f: any) => {
    const e = edits.get(f.fieldPath);
    const label = readablePath(f.fieldPath);
    const edTags: any[] = e?.globalTags?.tags ?? [];
    const edTerms: any[] = e?.glossaryTerms?.terms ?? [];
    const uniq = (xs: any[], k: string) => [...new Map(xs.map((x) => [x[k].urn, x])).values()];
    return {
      fieldPath: f.fieldPath,
      label,
      depth: Math.max(0, label.split('.').length - 1),
      type: f.nativeDataType || String(f.type ?? '').toLowerCase(),
      nullable: !!f.nullable,
      key: !!f.isPartOfKey || (entity.schemaMetadata?.primaryKeys ?? []).includes(f.fieldPath),
      description: (e?.description ?? '') || (f.description ?? ''),
      original: f.description ?? '',
      tags: uniq([...(f.globalTags?.tags ?? []), ...edTags], 'tag'),
      editableTags: new Set(edTags.map((t) => t.tag.urn)),
      terms: uniq([...(f.glossaryTerms?.terms ?? []), ...edTerms], 'term'),
      editableTerms: new Set(edTerms.map((t) => t.term.urn)),
    };
  });
}

function SchemaTable({ entity }: { entity: Record<string, any> }) {
  const urn = entity.urn as string;
  const mutate = useEntityMutation(urn);
  const [filter, setFilter] = useState('');
  const columns = useMemo(() => columnsOf(entity), [entity]);
  const f = filter.trim().toLowerCase();
  const shown = f ? columns.filter((c) => c.fieldPath.toLowerCase().includes(f) || c.description.toLowerCase().includes(f)
    || c.type.toLowerCase().includes(f) || c.tags.some((t) => (t.tag.properties?.name ?? t.tag.name ?? '').toLowerCase().includes(f))
    || c.terms.some((t) => (t.term.properties?.name ?? t.term.name ?? '').toLowerCase().includes(f))) : columns;
  const canEdit = entity.privileges?.canEditDescription ?? true;
  const canTag = entity.privileges?.canEditTags ?? true;
  const canTerm = entity.privileges?.canEditGlossaryTerms ?? true;
  const field = (c: Column) => ({ resourceUrn: urn, subResourceType: 'DATASET_FIELD', subResource: c.fieldPath });

  if (!entity.schemaMetadata) return null;
  return (
    <section className="card" aria-labelledby="schema-h">
      <h2 id="schema-h">Schema <span className="muted small">({columns.length} column{columns.length === 1 ? '' : 's'})</span></h2>
      <div className="schema-toolbar">
        <label htmlFor="column-filter" className="visually-hidden">Filter columns</label>
        <input id="column-filter" type="search" placeholder="Filter columns by name, type, description, tag…" value={filter}
          onChange={(e) => setFilter(e.target.value)} />
        {f && <span className="muted small" aria-live="polite">{shown.length} of {columns.length}</span>}
      </div>
      <div className="table-wrap">
        <table className="schema-table">
          <thead>
            <tr><th scope="col">Column</th><th scope="col">Type</th><th scope="col">Description</th><th scope="col">Tags and terms</th></tr>
          </thead>
          <tbody>
            {shown.map((c) => (
              <tr key={c.fieldPath} data-field-path={c.fieldPath}>
                <td className="path" style={{ paddingLeft: 8 + c.depth * 16 }} title={c.fieldPath}>
                  {c.depth > 0 && <span className="visually-hidden">{c.label.split('.').slice(0, -1).join('.')}.</span>}
                  <Highlight text={c.depth > 0 ? c.label.split('.').pop()! : c.label} query={filter} />{c.key && <span className="badge" title="Part of the key"> key</span>}
                </td>
                <td className="type">{c.type}{c.nullable ? '' : ' · not null'}</td>
                <td className="desc-cell">
                  <EditableMarkdown compact value={c.description} label={`Description of ${c.label}`} canEdit={canEdit} empty="—"
                    onSave={(description) => mutate(UPDATE_DESCRIPTION, { input: { description, ...field(c) } })} />
                </td>
                <td>
                  <ColumnTags column={c} canTag={canTag} canTerm={canTerm}
                    onAddTag={(tagUrn) => mutate(ADD_TAG, { input: { tagUrn, ...field(c) } })}
                    onRemoveTag={(tagUrn) => mutate(REMOVE_TAG, { input: { tagUrn, ...field(c) } })}
                    onAddTerm={(termUrn) => mutate(ADD_TERM, { input: { termUrn, ...field(c) } })}
                    onRemoveTerm={(termUrn) => mutate(REMOVE_TERM, { input: { termUrn, ...field(c) } })} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {f && shown.length === 0 && <p className="muted">No column matches “{filter}”.</p>}
    </section>
  );
}

function ColumnTags({ column, canTag, canTerm, onAddTag, onRemoveTag, onAddTerm, onRemoveTerm }: {
  column: Column; canTag: boolean; canTerm: boolean;
  onAddTag: (u: string) => Promise<unknown>; onRemoveTag: (u: string) => Promise<unknown>;
  onAddTerm: (u: string) => Promise<unknown>; onRemoveTerm: (u: string) => Promise<unknown>;
}) {
  const [adding, setAdding] = useState<'tag' | 'term' | null>(null);
  return (
    <div className="column-tags">
      {column.tags.length > 0 && <TagList tags={column.tags} canEdit={canTag} onRemove={onRemoveTag} />}
      {column.terms.length > 0 && <TermList terms={column.terms} canEdit={canTerm} onRemove={onRemoveTerm} />}
      {adding === null && (canTag || canTerm) && (
        <span className="add-buttons">
          {canTag && <button type="button" className="linklike small" aria-label={`Add a tag to ${column.label}`} onClick={() => setAdding('tag')}>+ tag</button>}
          {canTerm && <button type="button" className="linklike small" aria-label={`Add a term to ${column.label}`} onClick={() => setAdding('term')}>+ term</button>}
        </span>
      )}
      {adding && (
        <div>
          <Picker types={[adding === 'tag' ? 'TAG' : 'GLOSSARY_TERM']} label={`Add a ${adding} to ${column.label}`} autoFocus
            onCancel={() => setAdding(null)}
            onPick={async (e) => { await (adding === 'tag' ? onAddTag(e.urn) : onAddTerm(e.urn)); setAdding(null); }} />
          <button type="button" className="linklike small" onClick={() => setAdding(null)}>Cancel</button>
        </div>
      )}
    </div>
  );
}

/** A user's profile as ingested (title, email, …). */
function Profile({ entity }: { entity: Record<string, any> }) {
  const p = entity.userProps ?? {};
  const rows = [['Full name', p.fullName], ['Title', p.title], ['Email', p.email], ['User name', entity.username]].filter(([, v]) => v);
  if (!rows.length) return null;
  return (
    <section className="card" aria-labelledby="profile-h">
      <h2 id="profile-h">Profile</h2>
      <dl className="kv">
        {rows.map(([k, v]) => (
          <div key={k} style={{ display: 'contents' }}>
            <dt>{k}</dt>
            <dd>{k === 'Email' ? <a href={`mailto:${v}`}>{v}</a> : v}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
