import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before } from 'node:test';
import pg from 'pg';
import { startApp, type TestApp } from './app.js';
import { PG_ADMIN_URL, throwawayPostgres, type EngineContext } from './engines.js';

/**
 * A fresh app for each test of a suite, each on its own copy of one database prepared once (samples, and whatever
 * `prepare` adds), so that every test starts from the same state whatever ran before it — and any one of them can
 * run alone (`--test-name-pattern`). Copies are cheap: a file copy on SQLite, CREATE DATABASE … TEMPLATE on
 * PostgreSQL. Call it in a forEachEngine body; the function it returns gives the test its app, closed after the test.
 */
export function freshAppPerTest(ctx: EngineContext, prepare: (t: TestApp) => Promise<void>): () => Promise<TestApp> {
  let dir: string | undefined;
  let template: { url: string; drop: () => Promise<void> } | undefined;
  let admin: pg.Client | undefined;
  let copies = 0;
  const open: { app: TestApp; drop: () => Promise<void> }[] = [];

  before(async () => {
    if (ctx.engine === 'sqlite') {
      dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-fresh-'));
      template = { url: `sqlite:${path.join(dir, 'template.db')}`, drop: async () => {} };
    } else {
      template = await throwawayPostgres();
      admin = new pg.Client({ connectionString: PG_ADMIN_URL });
      await admin.connect();
    }
    const t = await startApp({ ...ctx, url: template.url });
    try {
      await prepare(t);
    } finally {
      await t.close(); // a PostgreSQL template must have no connections; a SQLite file is complete once closed
    }
  });

  afterEach(async () => {
    for (const { app, drop } of open.splice(0)) {
      await app.close();
      await drop();
    }
  });

  after(async () => {
    await admin?.end();
    await template?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  return async () => {
    const n = ++copies;
    let url: string;
    let drop: () => Promise<void>;
    if (ctx.engine === 'sqlite') {
      const file = path.join(dir!, `copy-${n}.db`);
      const source = template!.url.slice('sqlite:'.length);
      copyFileSync(source, file);
      if (existsSync(`${source}-wal`)) copyFileSync(`${source}-wal`, `${file}-wal`);
      url = `sqlite:${file}`;
      drop = async () => {};
    } else {
      const name = `${new URL(template!.url).pathname.slice(1)}_${n}`;
      await admin!.query(`CREATE DATABASE ${name} TEMPLATE ${new URL(template!.url).pathname.slice(1)}`);
      const u = new URL(template!.url);
      u.pathname = `/${name}`;
      url = u.toString();
      drop = async () => void (await admin!.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
    const app = await startApp({ ...ctx, url });
    open.push({ app, drop });
    return app;
  };
}
