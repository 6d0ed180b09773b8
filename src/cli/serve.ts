import type { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { createApp } from '../app.js';
import { startRetentionJob } from '../services/retention-job.js';
import { fail, openFromEnv, redact } from './context.js';

export function registerServe(program: Command) {
  program
    .command('serve')
    .description('serve the catalog (REST, GraphQL and the explorer) on PORT')
    .option('--webapp-dir <dir>', "also serve a built copy of DataHub's web app from this folder (its index.html for the app's own paths)")
    .action(async (opts: { webappDir?: string }) => {
      const webappDir = opts.webappDir === undefined ? undefined : path.resolve(opts.webappDir);
      if (webappDir !== undefined && !(existsSync(webappDir) && statSync(webappDir).isDirectory() && existsSync(path.join(webappDir, 'index.html')))) {
        fail(`almanac: --webapp-dir ${opts.webappDir}: not a folder holding the web app's index.html`);
      }
      const catalog = await openFromEnv();
      const app = await createApp(catalog, { webappDir });
      let closing = false;
      let stopRetention = () => {};
      const shutdown = async (signal: string) => {
        if (closing) return;
        closing = true;
        app.log.info({ signal }, 'shutting down');
        // Stop accepting, let in-flight requests finish, then close the database cleanly.
        stopRetention();
        await app.close();
        await catalog.close();
        process.exit(0);
      };
      process.on('SIGTERM', () => void shutdown('SIGTERM'));
      process.on('SIGINT', () => void shutdown('SIGINT'));
      try {
        await app.listen({ port: catalog.config.port, host: catalog.config.host });
      } catch (e) {
        await catalog.close();
        fail(`almanac: cannot listen on ${catalog.config.host}:${catalog.config.port}: ${(e as Error).message}`);
      }
      app.log.info(`Almanac serving on ${catalog.config.host}:${catalog.config.port} with ${redact(catalog.config.databaseUrl)}`);
      stopRetention = startRetentionJob(catalog, (e) => app.log.error({ err: e }, 'time-series retention failed'));
      catalog.changeLog.armTestFault(process.env.ALMANAC_TEST_FAULT);
    });
}
