import { useQuery } from '@tanstack/react-query';
import { Suspense } from 'react';
import type { PageProps } from '../routes';
import { gql, GqlError } from '../gql';
import { type PageEntity, ADD_OWNER, ADD_TAG, ADD_TERM, ENTITY_PAGE, REMOVE_OWNER, REMOVE_TAG, REMOVE_TERM, REMOVE_LINK, ADD_LINK, SET_DOMAIN, UNSET_DOMAIN, UPDATE_DEPRECATION } from '../graphql/entity';
import { entityPath, typeInfo } from '../entityTypes';
import { summarize, urnName } from '../entitySummary';
import { ENTITY_TABS } from '../entityTabs';
import { Link, useTitle } from '../router';
import { PlatformBadge } from '../components/EntityBits';
import { Picker } from '../components/Picker';
import { Markdown } from '../components/Markdown';
import { TagList, TermList } from '../components/TagTermLists';
import { useEntityMutation } from './entity/mutate';
import { useState, type FormEvent } from 'react';

type Entity = PageEntity;

export default function EntityPage({ params }: PageProps) {
  const urn = params[1]!;
  const tabId = params[2] || '';
  const { data, error, isLoading } = useQuery({
    queryKey: ['entity', urn],
    queryFn: ({ signal }) => gql(ENTITY_PAGE, { urn }, { signal }),
  });
  const entity = data?.entity;
  const summary = entity ? summarize(entity) : null;
  useTitle(summary?.name ?? urnName(urn));

  if (isLoading) return <p className="muted" role="status">Loading…</p>;
  const missing = error instanceof GqlError && error.errors.every((e) => e.extensions?.type === 'NOT_FOUND' || e.extensions?.code === 404);
  if (error && !missing) return <div role="alert"><h1>{urnName(urn)}</h1><p className="error">{(error as Error).message}</p></div>;
  if (missing || !entity || !summary || entity.exists === false) {
    return (
      <div>
        <h1>{urnName(urn)}</h1>
        <p>Almanac holds nothing about <code>{urn}</code>.</p>
      </div>
    );
  }

  const tabs = ENTITY_TABS.filter((t) => t.applies(entity.type));
  const active = tabs.find((t) => t.id === tabId) ?? tabs[0]!;
  const Tab = active.component;

  return (
    <article className="entity" aria-labelledby="entity-name">
      <EntityHeader entity={entity} />
      <div className="entity-layout">
        <div className="entity-main">
          <nav className="tabs" aria-label="Sections">
            {tabs.map((t, i) => (
              <Link key={t.id} to={entityPath(urn, i === 0 ? undefined : t.id)} aria-current={t === active ? 'page' : undefined}>{t.label}</Link>
            ))}
          </nav>
          <Suspense fallback={<p className="muted" role="status">Loading…</p>}>
            <Tab urn={urn} type={entity.type} entity={entity} />
          </Suspense>
        </div>
        <Sidebar entity={entity} />
      </div>
    </article>
  );
}

function EntityHeader({ entity }: { entity: Entity }) {
  const s = summarize(entity);
  const crumbs: { name: string; urn?: string }[] = [];
  for (const c of [...(entity.parentContainers?.containers ?? [])].reverse()) crumbs.push({ name: c.properties?.name ?? urnName(c.urn), urn: c.urn });
  // The browse path, when it says something: DataHub gives every entity without one the path "Default", which is
  // left out (a folder named so that leads to an entity, a container, stays).
  if (!crumbs.length) {
    for (const p of entity.browsePathV2?.path ?? []) if (p.entity?.urn || p.name !== 'Default') crumbs.push({ name: p.name, urn: p.entity?.urn });
  }
  for (const n of [...(entity.parentNodes?.nodes ?? [])].reverse()) crumbs.push({ name: n.properties?.name ?? urnName(n.urn), urn: n.urn });
  for (const d of [...(entity.parentDomains?.domains ?? [])].reverse()) crumbs.push({ name: d.properties?.name ?? urnName(d.urn), urn: d.urn });
  if (entity.dataFlow?.urn) crumbs.push({ name: urnName(entity.dataFlow.urn), urn: entity.dataFlow.urn });
  const external = entity.extProps?.externalUrl as string | undefined;
  return (
    <header className="entity-header">
      <div className="kind">
        <PlatformBadge platform={s.platform} />
        <span className="badge">{typeInfo(entity.type).label}</span>
        {s.subTypes.map((t) => <span className="pill" key={t}>{t}</span>)}
        {entity.origin && <span className="pill">{entity.origin}</span>}
      </div>
      <h1 id="entity-name">{s.name}</h1>
      {crumbs.length > 0 && (
        <nav aria-label="Path" className="crumbs">
          {crumbs.map((c, i) => (
            <span key={i}>{i > 0 && '› '}{c.urn ? <Link to={entityPath(c.urn)}>{c.name}</Link> : c.name}</span>
          ))}
        </nav>
      )}
      <p className="muted small mono urn">{entity.urn}{external && <> · <a href={external} target="_blank" rel="noopener noreferrer">Open in source</a></>}</p>
      {entity.deprecation?.deprecated && (
        <div className="warn" role="note">
          <strong>Deprecated</strong>
          {entity.deprecation.decommissionTime ? ` — to be decommissioned ${new Date(entity.deprecation.decommissionTime).toLocaleDateString()}` : ''}
          {entity.deprecation.note && <Markdown text={entity.deprecation.note} />}
        </div>
      )}
    </header>
  );
}

const personName = (o: any): string =>
  o?.editableProperties?.displayName || o?.properties?.displayName || o?.properties?.fullName || o?.username || o?.name || urnName(o?.urn ?? '');

function Sidebar({ entity }: { entity: Entity }) {
  const urn = entity.urn;
  const mutate = useEntityMutation(urn);
  const can = (k: string) => entity.privileges?.[k] ?? true;
  return (
    <aside className="sidebar" aria-label="About">
      {'ownership' in entity && (
        <section className="card" aria-labelledby="owners-h">
          <h2 id="owners-h">Owners</h2>
          <ul className="pills plain">
            {(entity.ownership?.owners ?? []).map((o: any) => (
              <li className="pill" key={`${o.owner.urn}-${o.type}`}>
                <Link to={entityPath(o.owner.urn)}>{personName(o.owner)}</Link>
                {o.type && <span className="muted small">{String(o.type).toLowerCase().replace(/_/g, ' ')}</span>}
                {can('canEditOwners') && (
                  <button type="button" aria-label={`Remove owner ${personName(o.owner)}`}
                    onClick={() => mutate(REMOVE_OWNER, { input: { ownerUrn: o.owner.urn, resourceUrn: urn } }).catch((e) => alert(e.message))}>×</button>
                )}
              </li>
            ))}
            {!(entity.ownership?.owners ?? []).length && <li className="muted">No owners</li>}
          </ul>
          {can('canEditOwners') && (
            <Picker types={['CORP_USER', 'CORP_GROUP']} label="Add an owner"
              onPick={(e) => mutate(ADD_OWNER, { input: { ownerUrn: e.urn, ownerEntityType: e.type === 'CORP_GROUP' ? 'CORP_GROUP' : 'CORP_USER', type: 'TECHNICAL_OWNER', resourceUrn: urn } })} />
          )}
        </section>
      )}
      {'globalTags' in entity && (
        <section className="card" aria-labelledby="tags-h">
          <h2 id="tags-h">Tags</h2>
          <TagList tags={entity.globalTags?.tags ?? []} canEdit={can('canEditTags')}
            onRemove={(tagUrn) => mutate(REMOVE_TAG, { input: { tagUrn, resourceUrn: urn } })} />
          {can('canEditTags') && <Picker types={['TAG']} label="Add a tag" onPick={(e) => mutate(ADD_TAG, { input: { tagUrn: e.urn, resourceUrn: urn } })} />}
        </section>
      )}
      {'glossaryTerms' in entity && (
        <section className="card" aria-labelledby="terms-h">
          <h2 id="terms-h">Glossary terms</h2>
          <TermList terms={entity.glossaryTerms?.terms ?? []} canEdit={can('canEditGlossaryTerms')}
            onRemove={(termUrn) => mutate(REMOVE_TERM, { input: { termUrn, resourceUrn: urn } })} />
          {can('canEditGlossaryTerms') && <Picker types={['GLOSSARY_TERM']} label="Add a term" onPick={(e) => mutate(ADD_TERM, { input: { termUrn: e.urn, resourceUrn: urn } })} />}
        </section>
      )}
      {'domain' in entity && (
        <section className="card" aria-labelledby="domain-h">
          <h2 id="domain-h">Domain</h2>
          {entity.domain?.domain ? (
            <p className="pills">
              <span className="pill">
                <Link to={entityPath(entity.domain.domain.urn)}>{entity.domain.domain.properties?.name ?? urnName(entity.domain.domain.urn)}</Link>
                <button type="button" aria-label="Remove the domain" onClick={() => mutate(UNSET_DOMAIN, { entityUrn: urn }).catch((e) => alert(e.message))}>×</button>
              </span>
            </p>
          ) : <p className="muted">No domain</p>}
          <Picker types={['DOMAIN']} label={entity.domain?.domain ? 'Change the domain' : 'Set a domain'}
            onPick={(e) => mutate(SET_DOMAIN, { entityUrn: urn, domainUrn: e.urn })} />
        </section>
      )}
      {'institutionalMemory' in entity && <Links entity={entity} canEdit={can('canEditLinks')} />}
      {'deprecation' in entity && can('canEditDeprecation') && <DeprecationEditor entity={entity} />}
    </aside>
  );
}

function Links({ entity, canEdit }: { entity: Entity; canEdit: boolean }) {
  const mutate = useEntityMutation(entity.urn);
  const [url, setUrl] = useState('');
  const [label, setLabel] = useState('');
  const [error, setError] = useState<string | null>(null);
  const elements = entity.institutionalMemory?.elements ?? [];
  const add = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await mutate(ADD_LINK, { input: { linkUrl: url, label: label || url, resourceUrn: entity.urn } });
      setUrl('');
      setLabel('');
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <section className="card" aria-labelledby="links-h">
      <h2 id="links-h">Links</h2>
      {elements.length ? (
        <ul className="links">
          {elements.map((l: any) => (
            <li key={l.url}>
              <a href={l.url} target="_blank" rel="noopener noreferrer">{l.label || l.description || l.url}</a>
              {canEdit && <button type="button" className="linklike small" aria-label={`Remove link ${l.label || l.url}`}
                onClick={() => mutate(REMOVE_LINK, { input: { linkUrl: l.url, resourceUrn: entity.urn } }).catch((er) => setError(er.message))}> ×</button>}
            </li>
          ))}
        </ul>
      ) : <p className="muted">No links</p>}
      {canEdit && (
        <form className="link-form" onSubmit={add}>
          <label htmlFor="link-url" className="visually-hidden">Link URL</label>
          <input id="link-url" type="url" placeholder="https://…" value={url} onChange={(e) => setUrl(e.target.value)} required />
          <label htmlFor="link-label" className="visually-hidden">Link label</label>
          <input id="link-label" placeholder="Label" value={label} onChange={(e) => setLabel(e.target.value)} />
          <button type="submit" className="btn small">Add link</button>
        </form>
      )}
      {error && <p className="error small" role="alert">{error}</p>}
    </section>
  );
}

function DeprecationEditor({ entity }: { entity: Entity }) {
  const mutate = useEntityMutation(entity.urn);
  const deprecated = !!entity.deprecation?.deprecated;
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState('');
  const [error, setError] = useState<string | null>(null);
  const set = async (value: boolean) => {
    setError(null);
    try {
      await mutate(UPDATE_DEPRECATION, { input: { urn: entity.urn, deprecated: value, note: value ? note : '' } });
      setOpen(false);
      setNote('');
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section className="card" aria-labelledby="dep-h">
      <h2 id="dep-h">Deprecation</h2>
      {deprecated ? (
        <button type="button" className="btn small" onClick={() => set(false)}>Mark as not deprecated</button>
      ) : open ? (
        <form onSubmit={(e) => { e.preventDefault(); void set(true); }}>
          <label htmlFor="dep-note" className="small">Note (Markdown)</label>
          <input id="dep-note" value={note} onChange={(e) => setNote(e.target.value)} className="wide" />
          <div className="actions-row">
            <button type="submit" className="btn small primary">Deprecate</button>
            <button type="button" className="btn small" onClick={() => setOpen(false)}>Cancel</button>
          </div>
        </form>
      ) : (
        <p className="muted">Not deprecated. <button type="button" className="linklike" onClick={() => setOpen(true)}>Deprecate…</button></p>
      )}
      {error && <p className="error small" role="alert">{error}</p>}
    </section>
  );
}
