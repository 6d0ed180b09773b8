import type { Relationship } from './types.js';

/** An edge as stored, stamps included: two edges with one key are the same row. */
const edgeKey = (e: Relationship) => JSON.stringify([e.source, e.type, e.destination, e.createdOn ?? null, e.createdActor ?? null,
  e.updatedOn ?? null, e.updatedActor ?? null, e.manual === true]);

/**
 * What replacing some sources' stored edges by the wanted ones changes: rows to delete (gone, or with other stamps)
 * and rows to insert. Most writes change no edge (a description, a column's text), and then nothing is written.
 */
export function edgeChanges(stored: readonly Relationship[], wanted: readonly Relationship[]): { gone: Relationship[]; added: Relationship[] } {
  const had = new Set(stored.map(edgeKey));
  const has = new Set(wanted.map(edgeKey));
  return { gone: stored.filter((e) => !has.has(edgeKey(e))), added: wanted.filter((e) => !had.has(edgeKey(e))) };
}
