import { deepFreeze } from '../model/deep-freeze.js';
import { aspectKey } from './aspect-updates.js';
import { CharBudgetMap } from './char-budget-map.js';
import { type AspectRow, recordOf } from './schema.js';
import { readJson, sameStored, type StoredJson } from './stored-json.js';
import type { AspectRecord } from './types.js';

/**
 * The latest aspect values as parsed objects, kept by urn and aspect with the exact text they were parsed from. A
 * read compares the stored text with the kept one (a memory comparison, about a microsecond for a 20 kB schema) and
 * parses only when it differs (about 200 µs for the same schema on this project's machine): writes re-read the
 * aspects they check against (the schema an edited column must be in), the index step re-reads every aspect of the
 * entities it indexes, policies read the same few aspects on every request. Keyed on the text itself, a kept value
 * can never outlive a change, whichever server made it.
 *
 * Values are deep-frozen because readers share them: code that changes a value it read must copy it first (a change
 * in place throws instead of corrupting what other readers see).
 */
export class ParsedValues {
  private readonly kept: CharBudgetMap<{ stored: StoredJson; value: unknown }>;

  /**
   * `budgetChars`: the most text kept, in characters; the least recently read go first. `decode`: the text of a stored
   * value (SQLite's store answers values it has just written without decompressing them).
   */
  constructor(private readonly budgetChars = DEFAULT_BUDGET_CHARS,
    private readonly decode: (urn: string, aspect: string, stored: StoredJson) => string = (_u, _a, stored) => readJson(stored)) {
    this.kept = new CharBudgetMap(budgetChars);
  }

  /** The record of a latest-version row, its value shared with other readers of the same text. */
  record(row: AspectRow): AspectRecord {
    return recordOf(row, this.value(row.urn, row.aspect, row.metadata));
  }

  /** `stored`: the text, or SQLite's compressed form of it (compared as stored, so a hit costs no decompression). */
  private value(urn: string, aspect: string, stored: StoredJson): unknown {
    const key = aspectKey({ urn, aspect });
    const hit = this.kept.get(key);
    if (hit && sameStored(hit.stored, stored)) return hit.value;
    this.kept.delete(key);
    const text = this.decode(urn, aspect, stored);
    const value = deepFreeze(JSON.parse(text) as unknown);
    if (text.length <= this.budgetChars / 4) this.kept.set(key, { stored, value }, text.length);
    return value;
  }
}

/**
 * 1 M characters of JSON (parsed, about ten times that in heap): the aspects that writes and index steps read again
 * fit many times over, while a large ingest, whose new values are read once, does not grow the heap much.
 */
const DEFAULT_BUDGET_CHARS = 1_000_000;
