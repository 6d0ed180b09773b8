import { ENTITY_TABLE } from '../schema.js';
import type { EntityRow } from '../types.js';
import { urnInByteOrder } from './aspect-reads.js';
import type { PostgresConnection } from './connection.js';

/** Export's reads on PostgreSQL (src/services/export.ts): entities in byte order of their urns, page by page. */
export class PostgresExport {
  constructor(private readonly db: PostgresConnection) {}

  async entitiesAfter(q: { after?: string; entityTypes?: readonly string[]; limit: number }): Promise<EntityRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    // Byte order, as SQLite compares (urnInByteOrder).
    const urn = await urnInByteOrder(this.db);
    if (q.after !== undefined) { params.push(q.after); where.push(`${urn} > $${params.length}`); }
    if (q.entityTypes) { params.push(q.entityTypes); where.push(`entity_type = ANY($${params.length}::text[])`); }
    params.push(q.limit);
    const { rows } = await this.db.query(`SELECT urn, entity_type AS "entityType" FROM ${ENTITY_TABLE}
      ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY ${urn} LIMIT $${params.length}`, params);
    return rows as EntityRow[];
  }
}
