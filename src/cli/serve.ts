import type { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
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
      // The server's modules (Fastify, GraphQL, Mercurius) load only for `serve`: the other commands start faster.
      const [{ createApp }, { startRetentionJob }, { startChangeLogTrimJob }] = await Promise.all([
        import('../app.js'), import('../services/retention-job.js'), import('../changelog/trim-job.js')]);
      const catalog = await openFromEnv();
      // The GraphQL schema is built once it listens: /health and REST answer sooner; GraphQL requests wait for it.
      const app = await createApp(catalog, { webappDir, graphqlAfterListen: true });
      let closing = false;
      let stopJobs = async () => {};
      const shutdown = async (signal: string) => {
        if (closing) return;
        closing = true;
        app.log.info({ signal }, 'shutting down');
        // Stop accepting, let in-flight requests finish, then close the database cleanly.
        // The timed jobs and the follower first (each waits for a run under way), so that nothing uses the database
        // once it closes.
        await stopJobs().catch(() => {});
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
      if (catalog.seededPlatforms.length) {
        app.log.info({ step: 'seed-data-platforms', platforms: catalog.seededPlatforms },
          `seeded ${catalog.seededPlatforms.length} built-in data platforms (DataHub 0.12.1's bootstrap list), where no description was stored`);
      }
      app.log.info(`Almanac serving on ${catalog.config.host}:${catalog.config.port} with ${redact(catalog.config.databaseUrl)}`);
      // Other servers' writes (and other processes' on the same SQLite file): read from the change log within a second.
      await catalog.follow({
        onError: (e) => app.log.error({ err: e }, 'following the change log failed; retrying'),
        onRecovered: () => app.log.info('following the change log again'),
        onListening: (listening, e) => (listening
          ? app.log.info('listening for other servers\' changes')
          : app.log.warn({ err: e }, 'lost the connection listening for other servers\' changes; polling until it is back')),
      });
      // Timed jobs: on one server at a time when several share the database.
      const stopRetention = startRetentionJob(catalog.store, catalog.timeseries, catalog.config, (e) => app.log.error({ err: e }, 'time-series retention failed'));
      const stopTrim = startChangeLogTrimJob(catalog.store, {
        retentionDays: catalog.config.changeLogRetentionDays, intervalMs: catalog.config.retentionIntervalMs,
        onTrimmed: (n) => app.log.info({ job: 'change-log-trim', trimmed: n }, 'trimmed the change log'),
        onError: (e) => app.log.error({ err: e }, 'change-log trimming failed'),
      });
      // Webhook deliveries: on one server at a time too.
      catalog.webhooks.onError = (e, id) => app.log.error({ err: e, webhook: id }, 'webhook delivery failed');
      catalog.webhooks.start((job, fn) => catalog.store.runExclusive(job, fn));
      stopJobs = async () => { await Promise.all([stopRetention(), stopTrim()]); };
      catalog.changeLog.armTestFault(process.env.ALMANAC_TEST_FAULT);
    });
}
