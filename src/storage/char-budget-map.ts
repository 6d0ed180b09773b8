/**
 * A map that keeps its entries within a budget of characters, the least recently used going first: the parsed
 * latest values and SQLite's just-written texts are each such a cache, sized by the JSON text they stand for.
 */
export class CharBudgetMap<V> {
  private readonly entries = new Map<string, { value: V; chars: number }>();
  private chars = 0;

  constructor(private readonly budgetChars: number) {}

  /** The entry's value, which becomes the most recently used. */
  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    // Re-inserted so the map's order stays least recently used first.
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }

  /** Keeps a value of `chars` characters (replacing the key's), then drops the least recently used over the budget. */
  set(key: string, value: V, chars: number): void {
    this.delete(key);
    this.entries.set(key, { value, chars });
    this.chars += chars;
    for (const [k, e] of this.entries) {
      if (this.chars <= this.budgetChars) break;
      this.entries.delete(k);
      this.chars -= e.chars;
    }
  }

  delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.chars -= e.chars;
  }
}
