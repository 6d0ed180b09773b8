import { typeInfo } from './entityTypes';
import { BASE } from './base';

/** What the uiEntitySummary fragment returns, loosely typed (its shape varies by type). */
export interface RawEntity {
  urn: string;
  type: string;
  [field: string]: unknown;
}

export interface Platform {
  urn: string;
  name: string;
  properties?: { displayName?: string | null; logoUrl?: string | null } | null;
}

export interface EntitySummary {
  urn: string;
  type: string;
  typeLabel: string;
  name: string;
  description: string | null;
  platform: Platform | null;
  subTypes: string[];
}

const obj = (v: unknown): Record<string, any> => (v && typeof v === 'object' ? (v as Record<string, any>) : {});
const str = (...vs: unknown[]): string | null => {
  for (const v of vs) if (typeof v === 'string' && v.trim() !== '') return v;
  return null;
};

/** The last readable part of a urn, as a fallback name. */
export function urnName(urn: string): string {
  const inner = urn.replace(/^urn:li:[A-Za-z]+:/, '');
  const m = /^\((.*)\)$/.exec(inner);
  if (m) {
    const parts = m[1]!.split(',');
    return parts.length >= 2 ? parts[1]! : parts[0]!;
  }
  return inner;
}

export function summarize(e: RawEntity): EntitySummary {
  const props = obj(e.properties);
  const editable = obj(e.editableProperties);
  const info = obj(e.info);
  const user = obj(e.userProps);
  const group = obj(e.groupProps);
  const platformProps = obj(e.platformProps);
  const platform = (obj(e.platform).urn ? e.platform : obj(e.dataFlow).platform) as Platform | undefined;
  const name = e.type === 'DATA_PLATFORM' ? platformName({ urn: e.urn, name: String(e.name ?? urnName(e.urn)), properties: platformProps })
    : str(editable.displayName, user.displayName, user.fullName, group.displayName, props.name, info.title, e.name, e.username) ?? urnName(e.urn);
  return {
    urn: e.urn,
    type: e.type,
    typeLabel: typeInfo(e.type).label,
    name,
    description: str(editable.description, props.description, info.description, group.description, e.description, user.title),
    platform: platform && obj(platform).urn ? platform : null,
    subTypes: ((obj(e.subTypes).typeNames as string[] | undefined) ?? []),
  };
}

/**
 * A platform's name as people write it: its display name, else its name with a capital (as DataHub's web app shows a
 * platform it knows nothing about), so that "Science" sits beside "Hive", not "science".
 */
export const platformName = (p: Platform | null | undefined) => (p ? p.properties?.displayName || capitalized(p.name) : '');
const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * A logo the page may load: same-origin or data: only (the page's CSP blocks other origins; no CDN). DataHub's own
 * logo paths (/assets/platforms/…, those of the built-in platforms) are files of DataHub's web app: served only when
 * the server serves the web app too, which is when this UI lives under a prefix (BASE).
 */
export function localLogo(p: Platform | null | undefined): string | null {
  const url = p?.properties?.logoUrl;
  if (!url) return null;
  if (url.startsWith('/assets/platforms/') && BASE === '') return null;
  if (url.startsWith('data:image/') || (url.startsWith('/') && !url.startsWith('//'))) return url;
  return null;
}
