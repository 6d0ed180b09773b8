import type pg from 'pg';
import { RELATIONSHIP_TABLE } from '../schema.js';
import { EDGE_COLUMNS, EDGE_KEY_COLUMNS, edgeChanges, edgeOf } from '../edges.js';
import type { Relationship } from '../types.js';
import { lockInOrder, prepared, type PostgresConnection } from './connection.js';

/** Relationships on PostgreSQL: the edges each source's aspects name, replaced per source, read in either direction. */

export async function replaceRelationships(db: PostgresConnection, sources: readonly string[], edges: Relationship[]): Promise<void> {
  await db.tx((c) => writeRelationships(c, sources, edges));
}

/** Inside a write transaction. */
export async function writeRelationships(c: pg.PoolClient, sources: readonly string[], wanted: readonly Relationship[]): Promise<void> {
  {
    // Two replacements of one source's edges would otherwise deadlock on each other's uncommitted inserts.
    await lockInOrder(c, [...new Set(sources)].sort().map((source) => `${source}\n#relationships`));
    // Each source's edges by a probe of the key (a LATERAL subquery kept apart: OFFSET 0). With `source = ANY`, the
    // planner read a page of a bulk catch-up (800 sources) by scanning the whole table, never analyzed during the load.
    const stored = sources.length
      ? (await c.query(prepared(`SELECT r.* FROM UNNEST($1::text[]) AS k(source) CROSS JOIN LATERAL (SELECT ${EDGE_COLUMNS} FROM ${RELATIONSHIP_TABLE} r
          WHERE r.source = k.source OFFSET 0) r`, [[...new Set(sources)]]))).rows.map(edgeOf) : [];
    const { gone, added: edges } = edgeChanges(stored, wanted);
    if (gone.length) {
      await c.query(prepared(`DELETE FROM ${RELATIONSHIP_TABLE} r USING UNNEST($1::text[], $2::text[], $3::text[]) AS g(source, type, destination)
        WHERE r.source = g.source AND r.type = g.type AND r.destination = g.destination`,
      [gone.map((e) => e.source), gone.map((e) => e.type), gone.map((e) => e.destination)]));
    }
    if (edges.length) {
      await c.query(prepared(`INSERT INTO ${RELATIONSHIP_TABLE} (source, type, destination, created_on, created_actor, updated_on, updated_actor, manual)
        SELECT * FROM UNNEST($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::bigint[], $7::text[], $8::int[])
        ON CONFLICT DO NOTHING`,
      [edges.map((e) => e.source), edges.map((e) => e.type), edges.map((e) => e.destination), edges.map((e) => e.createdOn ?? null),
        edges.map((e) => e.createdActor ?? null), edges.map((e) => e.updatedOn ?? null), edges.map((e) => e.updatedActor ?? null),
        edges.map((e) => (e.manual ? 1 : 0))]));
    }
  }
}

export async function relationships(db: PostgresConnection, q: { urn: string; direction: 'INCOMING' | 'OUTGOING'; types?: string[]; start: number; count: number }) {
  const [self, other] = q.direction === 'INCOMING' ? ['destination', 'source'] : ['source', 'destination'];
  const params: unknown[] = [q.urn];
  let where = `${self} = $1`;
  if (q.types?.length) { params.push(q.types); where += ` AND type = ANY($2)`; }
  const total = (await db.query(`SELECT COUNT(*)::int AS n FROM ${RELATIONSHIP_TABLE} WHERE ${where}`, params)).rows[0].n as number;
  const { rows } = await db.query(`SELECT ${EDGE_COLUMNS} FROM ${RELATIONSHIP_TABLE} WHERE ${where}
    ORDER BY ${other} COLLATE "C", type LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [...params, q.count, q.start]);
  return { total, edges: rows.map(edgeOf) };
}

export async function countRelationships(db: PostgresConnection, upTo?: number): Promise<number> {
  const from = upTo === undefined ? RELATIONSHIP_TABLE : `(SELECT 1 FROM ${RELATIONSHIP_TABLE} LIMIT ${Math.floor(upTo)}) t`;
  return (await db.query(`SELECT COUNT(*)::int AS n FROM ${from}`)).rows[0].n as number;
}

export async function relationshipsOf(db: PostgresConnection, q: { urns: readonly string[]; direction: 'INCOMING' | 'OUTGOING'; types: readonly string[]; stamps?: boolean }): Promise<Relationship[]> {
  if (q.urns.length === 0 || q.types.length === 0) return [];
  const self = q.direction === 'INCOMING' ? 'destination' : 'source';
  const { rows } = await db.query(prepared(`SELECT ${q.stamps === false ? EDGE_KEY_COLUMNS : EDGE_COLUMNS} FROM ${RELATIONSHIP_TABLE} WHERE ${self} = ANY($1) AND type = ANY($2)`,
    [[...q.urns], [...q.types]]));
  return rows.map(edgeOf);
}
