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
