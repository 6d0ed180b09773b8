import type { ReactNode } from 'react';
import { entityPath } from '../entityTypes';
import { localLogo, platformName, summarize, type Platform, type RawEntity } from '../entitySummary';
import { Link } from '../router';

/** A platform's logo when the page may load it, else its name. */
export function PlatformBadge({ platform, withName = true }: { platform: Platform | null | undefined; withName?: boolean }) {
  if (!platform) return null;
  const logo = localLogo(platform);
  const name = platformName(platform);
  return (
    <span className="platform">
      {logo && <img className="platform-logo" src={logo} alt={withName ? '' : name} />}
      {(withName || !logo) && <span>{name}</span>}
    </span>
  );
}

/** A link to an entity's page, named by its summary. */
export function EntityLink({ entity, children }: { entity: RawEntity; children?: ReactNode }) {
  const s = summarize(entity);
  return <Link to={entityPath(entity.urn)}>{children ?? s.name}</Link>;
}

/** `text` with every occurrence of the query's words marked. */
export function Highlight({ text, query }: { text: string; query: string }) {
  const words = query.split(/[^\p{L}\p{N}_]+/u).filter((w) => w.length > 0 && w !== '*');
  if (!words.length || !text) return <>{text}</>;
  const pattern = new RegExp(`(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`, 'giu');
  const parts = text.split(pattern);
  return <>{parts.map((p, i) => (i % 2 === 1 ? <mark key={i}>{p}</mark> : p))}</>;
}
