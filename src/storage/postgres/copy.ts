import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/**
 * Rows sent by COPY (text format) rather than as array parameters of a statement. A large write's parameters cost
 * this process most of its time: each value quoted and escaped into an array literal, the literal measured and copied
 * into the message, and PostgreSQL then parses the literal back (at 2,000 generated datasets, 1.0 of the 1.9 s of the
 * main thread's CPU went to binding them). COPY's text format escapes only backslashes and line and tab characters,
 * which JSON text seldom holds.
 */

/** A value of a COPY row: null is NULL; numbers as their text. */
export type CopyValue = string | number | null;

/** Rows from which a write goes by COPY. */
export const COPY_FROM_ROWS = 200;

/** The text of each COPY chunk sent (about this many characters). */
const CHUNK_CHARS = 256 * 1024;

const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A value in COPY's text format. */
export function copyField(v: CopyValue): string {
  if (v === null) return '\\N';
  const s = typeof v === 'string' ? v : String(v);
  return SPECIAL.test(s) ? s.replace(SPECIALS, (ch) => ESCAPED[ch]!) : s;
}

/** The rows as COPY's text, in chunks of about CHUNK_CHARS. */
function* copyText(rows: Iterable<readonly CopyValue[]>): Generator<string> {
  let parts: string[] = [];
  let size = 0;
  for (const row of rows) {
    const line = `${row.map(copyField).join('\t')}\n`;
    parts.push(line);
    size += line.length;
    if (size >= CHUNK_CHARS) {
      yield parts.join('');
      parts = [];
      size = 0;
    }
  }
  if (parts.length) yield parts.join('');
}

/** Inserts rows into a table's columns by COPY, inside the caller's transaction. */
export async function copyRows(c: pg.PoolClient, table: string, columns: readonly string[], rows: Iterable<readonly CopyValue[]>): Promise<void> {
  const stream = c.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await pipeline(Readable.from(copyText(rows), { objectMode: false }), stream);
}
