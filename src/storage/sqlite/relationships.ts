import { RELATIONSHIP_TABLE } from '../schema.js';
import { EDGE_COLUMNS, EDGE_KEY_COLUMNS, edgeChanges, edgeOf, type EdgeRow } from '../edges.js';
import type { Relationship } from '../types.js';
import type { SqliteConnection } from './connection.js';

/** Relationships on SQLite: the edges each source's aspects name, replaced per source, read in either direction. */

export function replaceRelationships(c: SqliteConnection, sources: readonly string[], edges: Relationship[]): void {
  c.db.transaction(() => writeRelationships(c, sources, edges)).immediate();
}

const INSERT_EDGE = `INSERT OR IGNORE INTO ${RELATIONSHIP_TABLE} (source, type, destination, created_on, created_actor, updated_on,
  updated_actor, manual) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

/** Inside a write transaction. */
export function writeRelationships(c: SqliteConnection, sources: readonly string[], edges: readonly Relationship[]): void {
  {
    const stored = sources.flatMap((s) => (c.stmt(`SELECT ${EDGE_COLUMNS} FROM ${RELATIONSHIP_TABLE} WHERE source = ?`).all(s) as EdgeRow[]).map(edgeOf));
    const { gone, added } = edgeChanges(stored, edges);
    const del = c.stmt(`DELETE FROM ${RELATIONSHIP_TABLE} WHERE source = ? AND type = ? AND destination = ?`);
    for (const e of gone) del.run(e.source, e.type, e.destination);
    const insert = c.stmt(INSERT_EDGE);
    for (const e of added) {
      insert.run(e.source, e.type, e.destination, e.createdOn ?? null,
        e.createdActor ?? null, e.updatedOn ?? null, e.updatedActor ?? null, e.manual ? 1 : 0);
    }
  }
}

export function relationships(c: SqliteConnection, q: { urn: string; direction: 'INCOMING' | 'OUTGOING'; types?: string[]; start: number; count: number }) {
  const [self, other] = q.direction === 'INCOMING' ? ['destination', 'source'] : ['source', 'destination'];
  const params: unknown[] = [q.urn];
  let where = `${self} = ?`;
  if (q.types?.length) { where += ` AND type IN (${q.types.map(() => '?').join(',')})`; params.push(...q.types); }
  const total = c.stmt(`SELECT COUNT(*) FROM ${RELATIONSHIP_TABLE} WHERE ${where}`).pluck().get(...params) as number;
  const edges = c.stmt(`SELECT ${EDGE_COLUMNS} FROM ${RELATIONSHIP_TABLE} WHERE ${where} ORDER BY ${other}, type LIMIT ? OFFSET ?`)
    .all(...params, q.count, q.start) as EdgeRow[];
  return { total, edges: edges.map(edgeOf) };
}

export function countRelationships(c: SqliteConnection, upTo?: number): number {
  const from = upTo === undefined ? RELATIONSHIP_TABLE : `(SELECT 1 FROM ${RELATIONSHIP_TABLE} LIMIT ${Math.floor(upTo)})`;
  return c.stmt(`SELECT COUNT(*) FROM ${from}`).pluck().get() as number;
}

export function relationshipsOf(c: SqliteConnection, q: { urns: readonly string[]; direction: 'INCOMING' | 'OUTGOING'; types: readonly string[]; stamps?: boolean }): Relationship[] {
  if (q.urns.length === 0 || q.types.length === 0) return [];
  const self = q.direction === 'INCOMING' ? 'destination' : 'source';
  // The lists as JSON: one prepared statement whatever their lengths (a text per length had to be prepared each time,
  // and SQLite bounds the parameters a statement may have).
  // Without stamps, an incoming walk reads the (destination, type, source) index alone, not the table's rows.
  const rows = c.stmt(`SELECT ${q.stamps === false ? EDGE_KEY_COLUMNS : EDGE_COLUMNS} FROM ${RELATIONSHIP_TABLE} WHERE ${self} IN (SELECT value FROM json_each(?))
    AND type IN (SELECT value FROM json_each(?))`).all(JSON.stringify(q.urns), JSON.stringify(q.types)) as EdgeRow[];
  return rows.map(edgeOf);
}
