import { RoaringBitmap32, type Bitmap, type FacetOp } from './facet-bitmaps.js';

/**
 * Per query word, the documents whose name or text has a word starting with it (what FTS5's `"word"*` on the name and
 * body columns matches), as bitmaps kept beside the facet bitmaps: a search of frequent words is then an intersection
 * in memory rather than a read of their whole doclists (at 1,000,000 datasets, reading them was ~75 % of a two-word
 * search found in most documents). A word's bitmap is read from the text index the first time it is searched and kept
 * when it is frequent (rare words read quickly); this process's commits update the kept bitmaps exactly (each written
 * document carries its words), and anything else that changes the documents (another process's writes read back, a
 * rebuild, a document whose words cannot be tested here) empties them.
 *
 * The words are tested as FTS5's unicode61 tokenizer splits them: the search documents' name and text are lower-case
 * ASCII words already (src/services/search-documents.ts), split again at anything else; a text with non-ASCII
 * characters (which unicode61 folds in ways not repeated here) empties the bitmaps instead.
 */
export class WordBitmaps {
  /** Per word, the documents with a name or text word starting with it, and those with a name word; most recently used last. */
  private readonly bits = new Map<string, WordDocs>();
  /** The lengths of the kept words (a document's words are tested by their prefixes of these lengths). */
  private lengths: number[] = [];

  /**
   * `min`: a word's bitmaps are kept when it is in at least this many documents (below, reading the word's doclist
   * takes about a millisecond at most). `max`: how many words are kept (each at most N/4 bytes for N documents).
   */
  constructor(public min = 1_000, public max = 128) {}

  get size(): number {
    return this.bits.size;
  }

  /** The kept bitmaps of a query word (not to be changed by the caller), or undefined. */
  get(word: string): WordDocs | undefined {
    const b = this.bits.get(word);
    if (b) {
      this.bits.delete(word);
      this.bits.set(word, b);
    }
    return b;
  }

  /** Whether a word's documents, just read from the text index, are to be kept (then offer() them with its name's). */
  wanted(docs: Bitmap): boolean {
    return docs.size >= this.min && this.max > 0;
  }

  /** A word's documents and those that have it in their name, as just read from the text index: kept (copies). */
  offer(word: string, docs: Bitmap, named: Bitmap): void {
    if (!this.wanted(docs)) return;
    while (this.bits.size >= this.max) this.bits.delete(this.bits.keys().next().value!);
    this.bits.set(word, { any: docs.clone(), name: named.clone() });
    this.lengths = [...new Set([...this.bits.keys()].map((w) => w.length))];
  }

  clear(): void {
    this.bits.clear();
    this.lengths = [];
  }

  bytes(): number {
    let n = 0;
    for (const b of this.bits.values()) n += b.any.getSerializationSizeInBytes('croaring') + b.name.getSerializationSizeInBytes('croaring');
    return n;
  }

  /**
   * This process's committed changes of the search documents. A document set without its words (or with words that
   * cannot be tested here) empties the bitmaps: they would no longer be exact.
   */
  apply(ops: readonly FacetOp[]): void {
    if (this.bits.size === 0) return;
    // Each document's last state in the batch: the kept words it has anywhere and in its name (none when removed).
    const none = { any: new Set<string>(), name: new Set<string>() };
    const last = new Map<number, { any: Set<string>; name: Set<string> }>();
    for (const op of ops) {
      if ('remove' in op) {
        last.set(op.remove, none);
        continue;
      }
      const t = op.set.text;
      if (t === undefined || !ASCII.test(t.name) || !ASCII.test(t.body)) {
        this.clear();
        return;
      }
      const name = this.keptWordsOf(t.name);
      const any = this.keptWordsOf(t.body);
      for (const w of name) any.add(w);
      last.set(op.set.id, { any, name });
    }
    for (const [word, b] of this.bits) {
      for (const part of ['any', 'name'] as const) {
        const add: number[] = [];
        const drop: number[] = [];
        for (const [id, has] of last) (has[part].has(word) ? add : drop).push(id);
        if (drop.length) b[part].removeMany(drop);
        if (add.length) b[part].addMany(add);
      }
    }
  }

  /** Which kept words some word of `text` starts with. */
  private keptWordsOf(text: string): Set<string> {
    const out = new Set<string>();
    for (const w of new Set(text.toLowerCase().split(/[^a-z0-9]+/))) {
      for (const n of this.lengths) if (n <= w.length && this.bits.has(w.length === n ? w : w.slice(0, n))) out.add(w.slice(0, n));
    }
    return out;
  }
}

/** A kept word's documents: with a name or text word starting with it (`any`), with a name word starting with it. */
export interface WordDocs {
  any: Bitmap;
  name: Bitmap;
}

/** Text of ASCII characters only (what keptWordsOf splits as unicode61 does). */
const ASCII = /^[\x00-\x7f]*$/;

export { RoaringBitmap32 };
