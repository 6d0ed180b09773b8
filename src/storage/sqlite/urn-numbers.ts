import { URN_TABLE } from '../schema.js';
import type { SqliteConnection } from './connection.js';

/**
 * The numbers of urns (and relationship types) on SQLite (migration 19): each stored once in URN_TABLE and named by its
 * number in the edges and the change log. A number, once given, never changes or goes.
 */

const ID_OF = `SELECT id FROM ${URN_TABLE} WHERE urn = ?`;
const NEW_ID = `INSERT INTO ${URN_TABLE} (urn) VALUES (?)`;

/** A urn's number, if it has one. */
export function urnNumber(c: SqliteConnection, urn: string): number | undefined {
  return c.stmt(ID_OF).pluck().get(urn) as number | undefined;
}

/**
 * Numbers urns inside one write transaction, giving the new ones theirs; the numbers looked up are kept for the
 * transaction (an entity's entries, owners and tags recur), not beyond it (one rolled back would leave them unstored).
 */
export function urnNumberer(c: SqliteConnection): ((urn: string) => number) & { known(urn: string): number | undefined } {
  const known = new Map<string, number>();
  const number = (urn: string) => {
    let id = known.get(urn) ?? urnNumber(c, urn);
    if (id === undefined) id = Number(c.stmt(NEW_ID).run(urn).lastInsertRowid);
    known.set(urn, id);
    return id;
  };
  /** A urn's number if it has one (kept for the transaction), without giving it one. */
  number.known = (urn: string) => {
    const id = known.get(urn) ?? urnNumber(c, urn);
    if (id !== undefined) known.set(urn, id);
    return id;
  };
  return number;
}
