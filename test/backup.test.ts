import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { catalogProposals, writeProposalFile } from '../bench/generate.js';
import { PG_DUMP_ADVICE } from '../src/services/backup.js';
import { forEachEngine, freshSharedDatabaseUrl } from './support/engines.js';
import { cli, contents, SAMPLE_FILES, withStore } from './support/export.js';
import { runCli, startServer, type ServerProcess } from './support/processes.js';

// `almanac backup` as a user runs it, beside a server (a process of its own) that keeps taking writes.

const exec = promisify(execFile);
const written = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,backup_write_${i},PROD)`;

forEachEngine('almanac backup', (ctx) => {
  let dir: string;
  let url: string;
  let cleanup = async () => {};
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-backup-'));
    ({ url, cleanup } = await freshSharedDatabaseUrl(ctx.engine));
    const generated = path.join(dir, 'generated.json');
    await writeProposalFile(generated, catalogProposals({ datasets: 30, seed: 5 }));
    await cli(['ingest', ...SAMPLE_FILES(), generated], url);
  });
  after(async () => {
    await cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  if (ctx.engine === 'sqlite') {
    test('a copy made while a server takes writes opens, is intact, and holds every write acknowledged before it began', async () => {
      const token = (await cli(['token', 'create', '--user', 'datahub'], url)).trim();
      let server: ServerProcess | undefined;
      try {
        server = await startServer({ DATABASE_URL: url });
        // One writer, one write at a time: acknowledged writes are 0..acked-1, and a copy of one moment holds a prefix.
        let acked = 0;
        let stop = false;
        const failures: string[] = [];
        const writer = (async () => {
          for (let i = 0; !stop; i++) {
            const res = await fetch(`${server!.base}/aspects?action=ingestProposal`, {
              method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: JSON.stringify({ proposal: { entityType: 'dataset', entityUrn: written(i), changeType: 'UPSERT', aspectName: 'datasetProperties',
                aspect: { contentType: 'application/json', value: JSON.stringify({ description: `write ${i}` }) } } }),
            });
            if (res.status !== 200) failures.push(`${i}: ${res.status} ${await res.text()}`);
            else acked = i + 1;
          }
        })();
        while (acked < 20) await new Promise((r) => setTimeout(r, 10));
        const before = acked;
        const copy = path.join(dir, 'copy.db');
        const res = await runCli(['backup', copy], { DATABASE_URL: url });
        const during = acked - before;
        stop = true;
        await writer;
        assert.equal(res.code, 0, res.stderr);
        assert.match(res.stdout, new RegExp(`^Backed up ${url.slice('sqlite:'.length)} to ${copy} in \\d+ ms: \\d+ pages, ${statSync(copy).size} bytes\\n$`));
        assert.deepEqual(failures, []);
        assert.equal(during > 0, true, `the server took ${during} writes while the backup ran`);
        assert.equal(statSync(copy).mode & 0o777, 0o600);
        // One file, nothing left in a -wal beside it: the copy can be moved alone.
        assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith('copy.db')), ['copy.db']);

        const db = new Database(copy, { readonly: true, fileMustExist: true });
        try {
          assert.deepEqual(db.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
        } finally {
          db.close();
        }
        await withStore(`sqlite:${copy}`, async (store) => {
          const attempted = Array.from({ length: acked + 1 }, (_, i) => written(i));
          const present = await store.existing(attempted);
          const k = present.size;
          assert.equal(k >= before, true, `the copy holds ${k} writes; ${before} were acknowledged before the backup began`);
          // A copy of one moment: exactly the first k writes, each with its value.
          assert.deepEqual([...present].sort(), attempted.slice(0, k).sort());
          const latest = await store.getLatest(attempted.slice(0, k), ['datasetProperties']);
          assert.deepEqual(attempted.slice(0, k).map((u) => latest.get(u)?.get('datasetProperties')?.value),
            attempted.slice(0, k).map((_, i) => ({ description: `write ${i}` })));
        });
      } finally {
        server?.child.kill('SIGTERM');
        await server?.exited;
      }
      // The copy is a catalog: the server's data as of the copy, the same as the source's for what was not written since.
      const copyUrl = `sqlite:${path.join(dir, 'copy.db')}`;
      const [was, now] = [await withStore(url, contents), await withStore(copyUrl, contents)];
      const untouched = (c: typeof was) => Object.fromEntries(Object.entries(c.aspects).filter(([u]) => !u.includes(',backup_write_')));
      assert.deepEqual(untouched(now), untouched(was));
      assert.deepEqual(now.timeseries, was.timeseries);
    });

    test('backup never writes over a file, and names what is wrong', async () => {
      const existing = path.join(dir, 'copy.db');
      const size = statSync(existing).size;
      const res = await runCli(['backup', existing], { DATABASE_URL: url });
      assert.deepEqual(res, { code: 1, stdout: '', stderr: `almanac: ${existing} exists; a backup is written to a new file\n` });
      assert.equal(statSync(existing).size, size);
      const nowhere = path.join(dir, 'no-such-folder', 'copy.db');
      assert.deepEqual(await runCli(['backup', nowhere], { DATABASE_URL: url }),
        { code: 1, stdout: '', stderr: `almanac: ${path.dirname(nowhere)}: no such folder\n` });
      const missing = path.join(dir, 'missing.db');
      assert.deepEqual(await runCli(['backup', path.join(dir, 'x.db')], { DATABASE_URL: `sqlite:${missing}` }),
        { code: 1, stdout: '', stderr: `almanac: ${missing}: no such database file (DATABASE_URL=sqlite:${missing})\n` });
      assert.equal(existsSync(missing) || existsSync(path.join(dir, 'x.db')), false);
    });
  } else {
    test('backup of a PostgreSQL catalog says to use pg_dump (exit code 2); the commands it shows make a copy that restores', async () => {
      const file = path.join(dir, 'copy.db');
      assert.deepEqual(await runCli(['backup', file], { DATABASE_URL: url }), { code: 2, stdout: '', stderr: `almanac: ${PG_DUMP_ADVICE}\n` });
      assert.equal(existsSync(file), false);
      // The commands as the message (and the README) give them.
      const restored = await freshSharedDatabaseUrl('postgres');
      try {
        const commands = PG_DUMP_ADVICE.split('\n').slice(1).map((l) => l.trim());
        assert.equal(commands.length, 2);
        for (const c of commands) {
          await exec('bash', ['-c', c], { cwd: dir, env: { ...process.env, DATABASE_URL: url, EMPTY_DATABASE_URL: restored.url } });
        }
        assert.deepEqual(await withStore(restored.url, contents), await withStore(url, contents));
      } finally {
        await restored.cleanup();
      }
    });
  }
});
