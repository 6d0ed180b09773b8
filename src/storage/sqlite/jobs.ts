/** One server per SQLite file: nothing to exclude, but runs of one job in this process still do not overlap. */
export class JobRuns {
  private readonly running = new Set<string>();

  async runExclusive(job: string, fn: (lost: AbortSignal) => Promise<void>): Promise<boolean> {
    if (this.running.has(job)) return false;
    this.running.add(job);
    try {
      await fn(new AbortController().signal);
      return true;
    } finally {
      this.running.delete(job);
    }
  }
}
