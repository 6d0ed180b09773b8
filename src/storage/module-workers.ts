import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * Starts a worker thread running the module `name` that sits beside the calling module (`callerUrl`, its
 * import.meta.url): `<name>.ts` when the caller runs from the sources, through tsx (Node 20 does not run a worker's
 * TypeScript entry through the hooks a flag such as `--import tsx` registers), else `<name>.js` (dist/, or the bundle,
 * where each such module is an entry of its own: scripts/build.js). The module posts one message once ready. Resolves
 * to null if the worker cannot start (the caller then does the work itself).
 */
export async function startModuleWorker(callerUrl: string, name: string, workerData: unknown,
  resourceLimits?: ResourceLimits): Promise<Worker | null> {
  const fromSources = callerUrl.endsWith('.ts');
  const file = new URL(`./${name}.${fromSources ? 'ts' : 'js'}`, callerUrl).href;
  let worker: Worker;
  try {
    worker = fromSources
      ? new Worker(`import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); `
        + `return import(${JSON.stringify(file)}); })`, { eval: true, workerData, resourceLimits })
      : new Worker(new URL(file), { workerData, resourceLimits });
  } catch {
    return null;
  }
  const ready = await new Promise<boolean>((resolve) => {
    worker.once('message', () => resolve(true));
    worker.once('error', () => resolve(false));
    worker.once('exit', () => resolve(false));
  });
  if (!ready) {
    await worker.terminate();
    return null;
  }
  return worker;
}

/**
 * What a service starts once, on first need, and closes with itself (a worker thread, a set of them): the start may
 * still be under way when the owner closes, and what it then starts is closed too, never kept.
 */
export class StartedOnce<T extends { close(): Promise<void> }> {
  /** Undefined before the start; null when it could not start, was dropped, or is closed. */
  private value: T | null | undefined;
  private starting: Promise<T | null> | null = null;

  constructor(private readonly start: () => Promise<T | null>) {}

  /** What runs now, without starting anything (undefined: not started yet). */
  get current(): T | null | undefined {
    return this.value;
  }

  /** Whether a start was asked for (it may still be under way). */
  get asked(): boolean {
    return this.value !== undefined || this.starting !== null;
  }

  /** Starts it (once); resolves to what runs, or null. */
  async started(): Promise<T | null> {
    if (this.value !== undefined) return this.value;
    this.starting ??= this.start().catch(() => null).then((v) => {
      // (Closed meanwhile: close() ends what it started.)
      if (this.value === undefined) this.value = v;
      return v;
    });
    await this.starting;
    return this.value ?? null;
  }

  /** Forgets what runs (it failed); nothing is started again. */
  drop(): void {
    this.value = null;
  }

  /** Ends what was started, waiting for a start under way. */
  async close(): Promise<void> {
    const started = this.value === undefined && this.starting ? await this.starting : this.value;
    this.value = null;
    await started?.close();
  }
}
