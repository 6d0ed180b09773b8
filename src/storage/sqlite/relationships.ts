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

const STORED = `SELECT r.source AS s, r.type AS t, r.destination AS d, ${EDGE_VIEW_COLUMNS} FROM ${EDGE_TABLE} r ${edgeJoins()}
  WHERE r.source = ?`;
const DELETE_EDGE = `DELETE FROM ${EDGE_TABLE} WHERE source = ? AND type = ? AND destination = ?`;
const INSERT_EDGE = `INSERT OR IGNORE INTO ${EDGE_TABLE} (source, type, destination, created_on, created_actor, updated_on, updated_actor, manual)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

export function replaceRelationships(c: SqliteConnection, sources: readonly string[], edges: Relationship[]): void {
  c.db.transaction(() => writeRelationships(c, sources, edges)).immediate();
}

/** Inside a write transaction. */
export function writeRelationships(c: SqliteConnection, sources: readonly string[], edges: readonly Relationship[]): void {
  const number = urnNumberer(c);
  const stored: (Relationship & { ids: [number, number, number] })[] = [];
  for (const source of sources) {
    // (Kept by the numberer when it has one: the source's edges are numbered with it below without a second lookup.)
    const id = number.known(source);
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

/** A urn's number, by a subquery (none: no edge matches). */
const SELF = `(SELECT id FROM ${URN_TABLE} WHERE urn = ?)`;
/** The numbers of the types in a JSON list. */
const TYPES = `(SELECT u.id FROM json_each(?) j JOIN ${URN_TABLE} u ON u.urn = j.value)`;
const STAMPS = 'r.created_on, r.created_actor, r.updated_on, r.updated_actor, r.manual';

export function relationships(c: SqliteConnection, q: { urn: string; direction: 'INCOMING' | 'OUTGOING'; types?: string[]; start: number; count: number }) {
  const [self, other] = q.direction === 'INCOMING' ? ['destination', 'source'] : ['source', 'destination'];
  const params: unknown[] = [q.urn];
  let where = `r.${self} = ${SELF}`;
  if (q.types?.length) { where += ` AND r.type IN ${TYPES}`; params.push(JSON.stringify(q.types)); }
  // In the order of the other end's urn, then the type's (as text, as before the numbers); this end's urn is the one given.
  const o = other === 'source' ? 's' : 'd';
  const edges = c.stmt(`SELECT ${other === 'source' ? 's.urn AS source' : '? AS source'}, t.urn AS type,
      ${other === 'source' ? '? AS destination' : 'd.urn AS destination'}, ${STAMPS}
    FROM ${EDGE_TABLE} r JOIN ${URN_TABLE} ${o} ON ${o}.id = r.${other} JOIN ${URN_TABLE} t ON t.id = r.type WHERE ${where}
    ORDER BY ${o}.urn, t.urn LIMIT ? OFFSET ?`).all(q.urn, ...params, q.count, q.start) as EdgeRow[];
  // A first page that is not full holds them all: counted only otherwise.
  const total = q.start === 0 && edges.length < q.count ? edges.length
    : c.stmt(`SELECT COUNT(*) FROM ${EDGE_TABLE} r WHERE ${where}`).pluck().get(...params) as number;
  return { total, edges: edges.map(edgeOf) };
}

export function countRelationships(c: SqliteConnection, upTo?: number): number {
  const from = upTo === undefined ? EDGE_TABLE : `(SELECT 1 FROM ${EDGE_TABLE} LIMIT ${Math.floor(upTo)})`;
  return c.stmt(`SELECT COUNT(*) FROM ${from}`).pluck().get() as number;
}

export function relationshipsOf(c: SqliteConnection, q: { urns: readonly string[]; direction: 'INCOMING' | 'OUTGOING'; types: readonly string[]; stamps?: boolean }): Relationship[] {
  if (q.urns.length === 0 || q.types.length === 0) return [];
  const [self, other] = q.direction === 'INCOMING' ? ['destination', 'source'] : ['source', 'destination'];
  // The lists as JSON: one prepared statement whatever their lengths (SQLite bounds the parameters a statement may
  // have). The urns' and types' numbers first, then their edges by key (CROSS JOIN keeps that order); without stamps an
  // incoming walk reads the (destination, type, source) index alone. Only the other end's urn is looked up per edge.
  const stamps = q.stamps === false ? '' : `, ${STAMPS}`;
  const rows = c.stmt(`SELECT h.urn AS here, t.urn AS type, o.urn AS other${stamps}
    FROM (SELECT u.id, u.urn FROM json_each(?) j JOIN ${URN_TABLE} u ON u.urn = j.value) h
    CROSS JOIN (SELECT u.id, u.urn FROM json_each(?) j JOIN ${URN_TABLE} u ON u.urn = j.value) t
    CROSS JOIN ${EDGE_TABLE} r CROSS JOIN ${URN_TABLE} o
    WHERE r.${self} = h.id AND r.type = t.id AND o.id = r.${other}`)
    .all(JSON.stringify([...new Set(q.urns)]), JSON.stringify([...new Set(q.types)])) as (EdgeRow & { here: string; other: string })[];
  // Without stamps, the edges built directly (a walk reads thousands: copying each row for edgeOf cost more than the read).
  if (q.stamps === false) {
    return self === 'source' ? rows.map((r) => ({ source: r.here, type: r.type, destination: r.other }))
      : rows.map((r) => ({ source: r.other, type: r.type, destination: r.here }));
  }
  return rows.map((r) => edgeOf({ ...r, source: self === 'source' ? r.here : r.other, destination: self === 'source' ? r.other : r.here }));
}

/** Sources of edges that are not in the store (SQLite's form of indexedWithoutEntitySql): at most `limit`. */
export function sourcesWithoutEntity(c: SqliteConnection, limit: number): string[] {
  return c.stmt(`SELECT u.urn FROM (SELECT DISTINCT source AS id FROM ${EDGE_TABLE}) x JOIN ${URN_TABLE} u ON u.id = x.id
    WHERE NOT EXISTS (SELECT 1 FROM ${ENTITY_TABLE} e WHERE e.urn = u.urn) LIMIT ?`).pluck().all(limit) as string[];
}
