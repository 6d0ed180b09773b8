import { EDGE_TABLE, EDGE_VIEW_COLUMNS, edgeJoins, ENTITY_TABLE, URN_TABLE } from '../schema.js';
import { edgeChanges, edgeOf, type EdgeRow } from '../edges.js';
import type { Relationship } from '../types.js';
import type { SqliteConnection } from './connection.js';
import { urnNumber, urnNumberer } from './urn-numbers.js';

/**
 * Relationships on SQLite: the edges each source's aspects name, replaced per source, read in either direction. Edges
 * are stored as the numbers of their urns and type (migration 19: URN_TABLE, EDGE_TABLE); a read turns the numbers of
 * the urns it was given back into those urns itself and looks up only the other end's.
 */

/** The numbers of the urns (or types) in a JSON list that have one. */
const IDS_OF = `SELECT u.id, u.urn FROM json_each(?) j JOIN ${URN_TABLE} u ON u.urn = j.value`;

const STORED = `SELECT r.source AS s, r.type AS t, r.destination AS d, ${EDGE_VIEW_COLUMNS} FROM ${EDGE_TABLE} r ${edgeJoins()}
  WHERE r.source = ?`;
const DELETE_EDGE = `DELETE FROM ${EDGE_TABLE} WHERE source = ? AND type = ? AND destination = ?`;
const INSERT_EDGE = `INSERT OR IGNORE INTO ${EDGE_TABLE} (source, type, destination, created_on, created_actor, updated_on, updated_actor, manual)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

/** The numbers of several urns, those without one left out. */
function idsOf(c: SqliteConnection, urns: readonly string[]): Map<number, string> {
  const rows = c.stmt(IDS_OF).all(JSON.stringify([...new Set(urns)])) as { id: number; urn: string }[];
  return new Map(rows.map((r) => [r.id, r.urn]));
}

export function replaceRelationships(c: SqliteConnection, sources: readonly string[], edges: Relationship[]): void {
  c.db.transaction(() => writeRelationships(c, sources, edges)).immediate();
}

/** Inside a write transaction. */
export function writeRelationships(c: SqliteConnection, sources: readonly string[], edges: readonly Relationship[]): void {
  const number = urnNumberer(c);
  const stored: (Relationship & { ids: [number, number, number] })[] = [];
  for (const source of sources) {
    const id = urnNumber(c, source);
    if (id === undefined) continue;
    for (const r of c.stmt(STORED).all(id) as (EdgeRow & { s: number; t: number; d: number })[]) stored.push({ ...edgeOf(r), ids: [r.s, r.t, r.d] });
  }
  const { gone, added } = edgeChanges(stored, edges);
  const del = c.stmt(DELETE_EDGE);
  for (const e of gone) del.run(...(e as (typeof stored)[number]).ids);
  const insert = c.stmt(INSERT_EDGE);
  for (const e of added) {
    insert.run(number(e.source), number(e.type), number(e.destination), e.createdOn ?? null, e.createdActor ?? null, e.updatedOn ?? null,
      e.updatedActor ?? null, e.manual ? 1 : 0);
  }
}

/** An entity's outgoing edges, when it is deleted. */
export function deleteEdgesFrom(c: SqliteConnection, urn: string): void {
  const id = urnNumber(c, urn);
  if (id !== undefined) c.stmt(`DELETE FROM ${EDGE_TABLE} WHERE source = ?`).run(id);
}

export function relationships(c: SqliteConnection, q: { urn: string; direction: 'INCOMING' | 'OUTGOING'; types?: string[]; start: number; count: number }) {
  const [self, other] = q.direction === 'INCOMING' ? ['destination', 'source'] : ['source', 'destination'];
  const id = urnNumber(c, q.urn);
  const types = q.types?.length ? [...idsOf(c, q.types).keys()] : undefined;
  if (id === undefined || types?.length === 0) return { total: 0, edges: [] };
  const params: unknown[] = [id];
  let where = `r.${self} = ?`;
  if (types) { where += ` AND r.type IN (SELECT value FROM json_each(?))`; params.push(JSON.stringify(types)); }
  const total = c.stmt(`SELECT COUNT(*) FROM ${EDGE_TABLE} r WHERE ${where}`).pluck().get(...params) as number;
  // In the order of the other end's urn, then the type's (as text, as before the numbers).
  const edges = c.stmt(`SELECT ${EDGE_VIEW_COLUMNS} FROM ${EDGE_TABLE} r ${edgeJoins()} WHERE ${where}
    ORDER BY ${other === 'source' ? 's' : 'd'}.urn, t.urn LIMIT ? OFFSET ?`).all(...params, q.count, q.start) as EdgeRow[];
  return { total, edges: edges.map(edgeOf) };
}

export function countRelationships(c: SqliteConnection, upTo?: number): number {
  const from = upTo === undefined ? EDGE_TABLE : `(SELECT 1 FROM ${EDGE_TABLE} LIMIT ${Math.floor(upTo)})`;
  return c.stmt(`SELECT COUNT(*) FROM ${from}`).pluck().get() as number;
}

export function relationshipsOf(c: SqliteConnection, q: { urns: readonly string[]; direction: 'INCOMING' | 'OUTGOING'; types: readonly string[]; stamps?: boolean }): Relationship[] {
  if (q.urns.length === 0 || q.types.length === 0) return [];
  const selves = idsOf(c, q.urns);
  const types = idsOf(c, q.types);
  if (selves.size === 0 || types.size === 0) return [];
  const [self, other] = q.direction === 'INCOMING' ? ['destination', 'source'] : ['source', 'destination'];
  // The lists as JSON: one prepared statement whatever their lengths (SQLite bounds the parameters a statement may
  // have). Without stamps, a walk reads the edges' key alone (an incoming one, the (destination, type, source) index).
  const stamps = q.stamps === false ? '' : ', r.created_on, r.created_actor, r.updated_on, r.updated_actor, r.manual';
  const rows = c.stmt(`SELECT r.${self} AS self, r.type, o.urn AS other${stamps} FROM ${EDGE_TABLE} r JOIN ${URN_TABLE} o ON o.id = r.${other}
    WHERE r.${self} IN (SELECT value FROM json_each(?)) AND r.type IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify([...selves.keys()]), JSON.stringify([...types.keys()])) as (EdgeRow & { self: number; type: number; other: string })[];
  return rows.map((r) => {
    const here = selves.get(r.self)!;
    return edgeOf({ ...r, type: types.get(r.type)!, source: self === 'source' ? here : r.other, destination: self === 'source' ? r.other : here });
  });
}

/** Sources of edges that are not in the store (SQLite's form of indexedWithoutEntitySql): at most `limit`. */
export function sourcesWithoutEntity(c: SqliteConnection, limit: number): string[] {
  return c.stmt(`SELECT u.urn FROM (SELECT DISTINCT source AS id FROM ${EDGE_TABLE}) x JOIN ${URN_TABLE} u ON u.id = x.id
    WHERE NOT EXISTS (SELECT 1 FROM ${ENTITY_TABLE} e WHERE e.urn = u.urn) LIMIT ?`).pluck().all(limit) as string[];
}
