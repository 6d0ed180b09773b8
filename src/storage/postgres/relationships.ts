import type pg from 'pg';
import { EDGE_TABLE, EDGE_VIEW_COLUMNS, edgeJoins, URN_TABLE } from '../schema.js';
import { edgeChanges, edgeOf, type EdgeRow } from '../edges.js';
import type { Relationship } from '../types.js';
import { lockInOrder, prepared, type PostgresConnection } from './connection.js';

/**
 * Relationships on PostgreSQL: the edges each source's aspects name, replaced per source, read in either direction.
 * Edges are stored as the numbers of their urns and type (migration 32: URN_TABLE, EDGE_TABLE, as SQLite's since its
 * migration 19); reads join the numbers back to their urns.
 */

export async function replaceRelationships(db: PostgresConnection, sources: readonly string[], edges: Relationship[]): Promise<void> {
  await db.tx((c) => writeRelationships(c, sources, edges));
}

/**
 * The numbers of some urns (and relationship types), new ones given theirs: in one statement, inserted in one order (so
 * that writers numbering the same new urns at once wait on each other rather than deadlock), and read again for any
 * that another transaction numbered first (its row committed after this statement's snapshot). A number, once given,
 * never changes or goes.
 */
async function urnNumbers(c: pg.PoolClient, urns: readonly string[]): Promise<Map<string, number>> {
  const names = [...new Set(urns)];
  const ids = new Map<string, number>();
  if (names.length === 0) return ids;
  const { rows } = await c.query(prepared(`WITH names AS (SELECT DISTINCT n.urn FROM UNNEST($1::text[]) AS n(urn)),
      known AS (SELECT u.id, u.urn FROM names JOIN ${URN_TABLE} u ON u.urn = names.urn),
      added AS (INSERT INTO ${URN_TABLE} (urn) SELECT n.urn FROM names n WHERE NOT EXISTS (SELECT 1 FROM known k WHERE k.urn = n.urn)
        ORDER BY n.urn ON CONFLICT (urn) DO NOTHING RETURNING id, urn)
    SELECT id, urn FROM known UNION ALL SELECT id, urn FROM added`, [names]));
  for (const r of rows) ids.set(r.urn as string, r.id as number);
  const missing = names.filter((u) => !ids.has(u));
  if (missing.length) {
    for (const r of (await c.query(`SELECT id, urn FROM ${URN_TABLE} WHERE urn = ANY($1::text[])`, [missing])).rows) ids.set(r.urn as string, r.id as number);
    const left = missing.find((u) => !ids.has(u));
    if (left !== undefined) throw new Error(`no number for ${left}`);
  }
  return ids;
}

/** Inside a write transaction. */
export async function writeRelationships(c: pg.PoolClient, sources: readonly string[], wanted: readonly Relationship[]): Promise<void> {
  // Two replacements of one source's edges would otherwise deadlock on each other's uncommitted inserts.
  await lockInOrder(c, [...new Set(sources)].sort().map((source) => `${source}\n#relationships`));
  // Each source's edges by a probe of the key (a LATERAL subquery kept apart: OFFSET 0). With `source = ANY`, the
  // planner read a page of a bulk catch-up (800 sources) by scanning the whole table, never analyzed during the load.
  const stored = sources.length
    ? (await c.query(prepared(`SELECT r.source AS sid, r.type AS tid, r.destination AS did, ${EDGE_VIEW_COLUMNS}
        FROM UNNEST($1::text[]) AS k(urn) JOIN ${URN_TABLE} s ON s.urn = k.urn
        CROSS JOIN LATERAL (SELECT * FROM ${EDGE_TABLE} e WHERE e.source = s.id OFFSET 0) r
        JOIN ${URN_TABLE} t ON t.id = r.type JOIN ${URN_TABLE} d ON d.id = r.destination`, [[...new Set(sources)]])))
      .rows.map((r) => ({ ...edgeOf(r as EdgeRow), ids: [r.sid, r.tid, r.did] as number[] }))
    : [];
  const { gone, added: edges } = edgeChanges(stored, wanted);
  if (gone.length) {
    const ids = gone.map((e) => (e as (typeof stored)[number]).ids);
    await c.query(prepared(`DELETE FROM ${EDGE_TABLE} r USING UNNEST($1::int[], $2::int[], $3::int[]) AS g(source, type, destination)
      WHERE r.source = g.source AND r.type = g.type AND r.destination = g.destination`, [ids.map((x) => x[0]), ids.map((x) => x[1]), ids.map((x) => x[2])]));
  }
  if (edges.length) {
    const number = await urnNumbers(c, edges.flatMap((e) => [e.source, e.type, e.destination]));
    await c.query(prepared(`INSERT INTO ${EDGE_TABLE} (source, type, destination, created_on, created_actor, updated_on, updated_actor, manual)
      SELECT * FROM UNNEST($1::int[], $2::int[], $3::int[], $4::bigint[], $5::text[], $6::bigint[], $7::text[], $8::int[])
      ON CONFLICT DO NOTHING`,
    [edges.map((e) => number.get(e.source)), edges.map((e) => number.get(e.type)), edges.map((e) => number.get(e.destination)),
      edges.map((e) => e.createdOn ?? null), edges.map((e) => e.createdActor ?? null), edges.map((e) => e.updatedOn ?? null),
      edges.map((e) => e.updatedActor ?? null), edges.map((e) => (e.manual ? 1 : 0))]));
  }
}

/** An entity's outgoing edges, when it is deleted (inside its transaction). */
export async function deleteEdgesFrom(c: pg.PoolClient, urn: string): Promise<void> {
  await c.query(prepared(`DELETE FROM ${EDGE_TABLE} WHERE source = (SELECT id FROM ${URN_TABLE} WHERE urn = $1)`, [urn]));
}

const STAMPS = 'r.created_on, r.created_actor, r.updated_on, r.updated_actor, r.manual';

/** A urn's number, by a subquery of the parameter `p` (none: no edge matches). */
const numberOf = (p: string) => `(SELECT id FROM ${URN_TABLE} WHERE urn = ${p})`;

export async function relationships(db: PostgresConnection, q: { urn: string; direction: 'INCOMING' | 'OUTGOING'; types?: string[]; start: number; count: number }) {
  const [self, other] = q.direction === 'INCOMING' ? ['destination', 'source'] : ['source', 'destination'];
  const params: unknown[] = [q.urn];
  let where = `r.${self} = ${numberOf('$1')}`;
  if (q.types?.length) { params.push(q.types); where += ` AND r.type IN (SELECT id FROM ${URN_TABLE} WHERE urn = ANY($2))`; }
  // Prepared (planned once per connection: with the joins of the numbers, planning took most of a page's time).
  const total = (await db.query(prepared(`SELECT COUNT(*)::int AS n FROM ${EDGE_TABLE} r WHERE ${where}`, params))).rows[0].n as number;
  // In the order of the other end's urn (byte order), then the type's, as before the numbers; this end's urn is the one
  // given, only the other end's and the type's are looked up.
  const o = other === 'source' ? 's' : 'd';
  const { rows } = await db.query(prepared(`SELECT ${other === 'source' ? 's.urn AS source' : '$1::text AS source'}, t.urn AS type,
      ${other === 'source' ? '$1::text AS destination' : 'd.urn AS destination'}, ${STAMPS}
    FROM ${EDGE_TABLE} r JOIN ${URN_TABLE} ${o} ON ${o}.id = r.${other} JOIN ${URN_TABLE} t ON t.id = r.type WHERE ${where}
    ORDER BY ${o}.urn COLLATE "C", t.urn LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [...params, q.count, q.start]));
  return { total, edges: rows.map(edgeOf) };
}

export async function countRelationships(db: PostgresConnection, upTo?: number): Promise<number> {
  const from = upTo === undefined ? EDGE_TABLE : `(SELECT 1 FROM ${EDGE_TABLE} LIMIT ${Math.floor(upTo)}) t`;
  return (await db.query(`SELECT COUNT(*)::int AS n FROM ${from}`)).rows[0].n as number;
}

export async function relationshipsOf(db: PostgresConnection, q: { urns: readonly string[]; direction: 'INCOMING' | 'OUTGOING'; types: readonly string[]; stamps?: boolean }): Promise<Relationship[]> {
  if (q.urns.length === 0 || q.types.length === 0) return [];
  const self = q.direction === 'INCOMING' ? 'destination' : 'source';
  // The urns' and types' numbers first, then their edges by a probe of the key (or the incoming index) per pair.
  const columns = q.stamps === false ? 's.urn AS source, t.urn AS type, d.urn AS destination' : EDGE_VIEW_COLUMNS;
  const { rows } = await db.query(prepared(`SELECT ${columns} FROM ${URN_TABLE} h CROSS JOIN ${URN_TABLE} y
    CROSS JOIN LATERAL (SELECT * FROM ${EDGE_TABLE} e WHERE e.${self} = h.id AND e.type = y.id) r ${edgeJoins()}
    WHERE h.urn = ANY($1) AND y.urn = ANY($2)`, [[...new Set(q.urns)], [...new Set(q.types)]]));
  return rows.map(edgeOf);
}
