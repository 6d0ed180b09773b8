import { ENTITY_TABLE } from '../schema.js';
import type { EntityRow } from '../types.js';
import type { PostgresConnection } from './connection.js';

/** Export's reads on PostgreSQL (src/services/export.ts): entities in byte order of their urns, page by page. */
export class PostgresExport {
  constructor(private readonly db: PostgresConnection) {}

  async entitiesAfter(q: { after?: string; entityTypes?: readonly string[]; limit: number }): Promise<EntityRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    // Byte order, as SQLite compares. Where the database's collation is byte order already, the urn index serves it
    // page by page; otherwise COLLATE "C" does, at the price of sorting the table for each page.
    const urn = (await this.collatesByBytes()) ? 'urn' : 'urn COLLATE "C"';
    if (q.after !== undefined) { params.push(q.after); where.push(`${urn} > $${params.length}`); }
    if (q.entityTypes) { params.push(q.entityTypes); where.push(`entity_type = ANY($${params.length}::text[])`); }
    params.push(q.limit);
    const { rows } = await this.db.query(`SELECT urn, entity_type AS "entityType" FROM ${ENTITY_TABLE}
      ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY ${urn} LIMIT $${params.length}`, params);
    return rows as EntityRow[];
  }

  private byteCollation: Promise<boolean> | undefined;
  /**
   * Whether the database compares text byte by byte: collation C or POSIX, or C.UTF-8 (code point order, which is
   * UTF-8's byte order).
   */
  private collatesByBytes(): Promise<boolean> {
    this.byteCollation ??= this.db.query('SELECT datcollate FROM pg_database WHERE datname = current_database()')
      .then(({ rows }) => /^(C|POSIX|C\.UTF-?8)$/i.test(String(rows[0]?.datcollate ?? '')))
      .catch((e) => { this.byteCollation = undefined; throw e; });
    return this.byteCollation;
  }
}
