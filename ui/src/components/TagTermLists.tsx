import { entityPath } from '../entityTypes';
import { urnName } from '../entitySummary';
import { Link } from '../router';

/** A tag or glossary term as GraphQL answers it inside globalTags / glossaryTerms (an entity's or a column's). */
interface Labelled {
  urn: string;
  name?: string | null;
  properties?: { name?: string | null } | null;
}
export interface TagAssociation { tag: Labelled }
export interface TermAssociation { term: Labelled }

interface ListProps {
  canEdit: boolean;
  /** Removes the tag or term by urn; a refusal is shown as an alert. */
  onRemove: (urn: string) => Promise<unknown>;
}

/** The tags on an entity or a column, each linking to its page, with a remove button for those who may edit them. */
export function TagList({ tags, ...rest }: ListProps & { tags: TagAssociation[] }) {
  return <PillList items={tags.map((t) => t.tag)} kind="tag" empty="No tags" {...rest} />;
}

/** The glossary terms on an entity or a column, as TagList shows tags. */
export function TermList({ terms, ...rest }: ListProps & { terms: TermAssociation[] }) {
  return <PillList items={terms.map((t) => t.term)} kind="term" empty="No terms" pillClass="pill term" {...rest} />;
}

function PillList({ items, kind, empty, pillClass = 'pill', canEdit, onRemove }: ListProps & {
  items: Labelled[]; kind: string; empty: string; pillClass?: string }) {
  if (!items.length) return <p className="muted">{empty}</p>;
  return (
    <ul className="pills plain">
      {items.map((item) => {
        const name = item.properties?.name ?? item.name ?? urnName(item.urn);
        return (
          <li className={pillClass} key={item.urn}>
            <Link to={entityPath(item.urn)}>{name}</Link>
            {canEdit && <button type="button" aria-label={`Remove ${kind} ${name}`} onClick={() => onRemove(item.urn).catch((e) => alert(e.message))}>×</button>}
          </li>
        );
      })}
    </ul>
  );
}
