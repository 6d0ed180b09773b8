import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { rootActor } from '../src/model/actor.js';
import { rewriteIndex } from '../src/http/ui.js';
import { startApp, type TestApp } from './support/app.js';
import { forEachEngine } from './support/engines.js';
import { freePort, runCli, startServer, type ServerProcess } from './support/processes.js';

/**
 * Almanac behind a TLS-terminating reverse proxy: which peers' X-Forwarded-* count (ALMANAC_TRUST_PROXY), and the
 * documented nginx configuration (docs/nginx.conf) run by the real nginx in front of real servers.
 */
const REPO = path.resolve(import.meta.dirname, '..');
const NGINX = '/usr/sbin/nginx';
const PASSWORD = 'proxy test password';

test('ALMANAC_TRUST_PROXY: unset trusts no one; addresses, CIDR ranges and named ranges; anything else stops start-up', () => {
  assert.equal(loadConfig({}).trustProxy, false);
  assert.equal(loadConfig({ ALMANAC_TRUST_PROXY: ' ' }).trustProxy, false);
  assert.deepEqual(loadConfig({ ALMANAC_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8 ,loopback' }).trustProxy,
    ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', 'loopback']);
  const refusal = (e: string) => `ALMANAC_TRUST_PROXY: '${e}' is not an IP address, a CIDR range (e.g. 10.0.0.0/8) or one of `
    + "loopback, linklocal, uniquelocal; give the proxies' addresses, separated by commas";
  for (const [value, entry] of [['true', 'true'], ['1', '1'], ['10.0.0.0/33', '10.0.0.0/33'], ['127.0.0.1,proxy.internal', 'proxy.internal'],
    ['10.0.0.1/8/8', '10.0.0.1/8/8'], ['::1/129', '::1/129']]) {
    assert.throws(() => loadConfig({ ALMANAC_TRUST_PROXY: value }), (e: unknown) => e instanceof ConfigError && e.message === refusal(entry!), value);
  }
});

/** The Set-Cookie lines of a response, name → attributes after the value. */
function cookieAttributes(headers: IncomingHttpHeaders | Record<string, unknown>): Record<string, string[]> {
  const raw = headers['set-cookie'];
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw as string[] : [raw as string];
  return Object.fromEntries(list.map((c) => {
    const [pair, ...attrs] = c.split(';').map((s) => s.trim());
    return [pair!.slice(0, pair!.indexOf('=')), attrs];
  }));
}
const SESSION_ATTRS = (maxAge: string, secure: boolean) => ({
  PLAY_SESSION: [maxAge, 'Path=/', 'SameSite=Lax', 'HttpOnly', ...(secure ? ['Secure'] : [])],
  actor: [maxAge, 'Path=/', 'SameSite=Lax', ...(secure ? ['Secure'] : [])],
});

forEachEngine('X-Forwarded-Proto and Secure cookies', (ctx) => {
  let trusting: TestApp;
  let trustingNone: TestApp;
  before(async () => {
    trusting = await startApp(ctx, { trustProxy: ['10.0.0.0/8'] });
    trustingNone = await startApp(ctx);
    // Each: on SQLite they are two in-memory databases.
    for (const t of [trusting, trustingNone]) await t.catalog.nativeUsers.setPassword('urn:li:corpuser:datahub', PASSWORD, rootActor());
  });
  after(async () => {
    await trusting?.close();
    await trustingNone?.close();
  });

  const logIn = (t: TestApp, remoteAddress: string, headers: Record<string, string>) => t.app.inject({ method: 'POST', url: '/logIn',
    remoteAddress, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify({ username: 'datahub', password: PASSWORD }) });

  test('session cookies are Secure when a trusted proxy says https, and only then', async () => {
    const maxAge = (res: { headers: Record<string, unknown> }) => cookieAttributes(res.headers).actor![0]!;
    const cases: [TestApp, string, Record<string, string>, boolean][] = [
      [trusting, '10.1.2.3', { 'x-forwarded-proto': 'https' }, true],
      [trusting, '10.1.2.3', { 'x-forwarded-proto': 'http' }, false],
      [trusting, '10.1.2.3', {}, false],
      // Anyone else may send the header: it does not count.
      [trusting, '192.168.1.5', { 'x-forwarded-proto': 'https' }, false],
      [trustingNone, '10.1.2.3', { 'x-forwarded-proto': 'https' }, false],
      [trustingNone, '127.0.0.1', { 'x-forwarded-proto': 'https' }, false],
    ];
    for (const [t, peer, headers, secure] of cases) {
      const res = await logIn(t, peer, headers);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(cookieAttributes(res.headers), SESSION_ATTRS(maxAge(res), secure), `${peer} ${JSON.stringify(headers)}`);
    }
    // Logging out clears them the same way.
    const out = await trusting.app.inject({ method: 'GET', url: '/logOut', remoteAddress: '10.9.9.9', headers: { 'x-forwarded-proto': 'https' } });
    assert.deepEqual(cookieAttributes(out.headers), SESSION_ATTRS('Max-Age=0', true));
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// The real nginx, configured from docs/nginx.conf.

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** docs/nginx.conf for this test: its ports, certificate and servers; every replaced line must be there once. */
function nginxConfig(dir: string, httpsPort: number, httpPort: number, upstreams: string[]): string {
  let text = readFileSync(path.join(REPO, 'docs/nginx.conf'), 'utf8');
  const replace = (from: string, to: string) => {
    assert.equal(text.split(from).length, 2, `docs/nginx.conf has "${from}" once`);
    text = text.replace(from, to);
  };
  replace('    server 127.0.0.1:8080;\n    server 127.0.0.1:8081;\n', upstreams.map((u) => `    server ${u};\n`).join(''));
  replace('listen 443 ssl;', `listen 127.0.0.1:${httpsPort} ssl;`);
  replace('listen [::]:443 ssl;\n', '');
  replace('listen 80;', `listen 127.0.0.1:${httpPort};`);
  replace('listen [::]:80;\n', '');
  replace('/etc/nginx/tls/almanac.crt', path.join(dir, 'almanac.crt'));
  replace('/etc/nginx/tls/almanac.key', path.join(dir, 'almanac.key'));
  // The rest of what Debian's /etc/nginx/nginx.conf gives around conf.d/, with every path under `dir`.
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `  ${k}_temp_path ${path.join(dir, `${k}_temp`)};`).join('\n');
  return `${process.getuid?.() === 0 ? 'user root;\n' : ''}worker_processes 1;
pid ${path.join(dir, 'nginx.pid')};
error_log ${path.join(dir, 'error.log')} warn;
events { worker_connections 256; }
http {
  access_log off;
${temp}
${text}
}
`;
}

forEachEngine('behind nginx with TLS (docs/nginx.conf)', (ctx) => {
  if (!existsSync(NGINX)) {
    test('nginx is installed', { skip: `${NGINX} is missing (apt-get install nginx)` }, () => {});
    return;
  }
  let dir: string;
  let servers: ServerProcess[] = [];
  let nginx: ChildProcess | undefined;
  let ca: Buffer;
  let base: string;
  let token: string;
  const webapp = () => path.join(dir, 'webapp');
  const WEBAPP_INDEX = '<!doctype html><html><head><title>DataHub</title></head><body><div id="root"></div></body></html>\n';

  /** An HTTPS request to nginx, trusting the test's own certificate. */
  const request = (method: string, url: string, headers: Record<string, string> = {}, body?: string | Buffer) => new Promise<Reply>((resolve, reject) => {
    const req = https.request(new URL(url, base), { method, headers, ca }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-proxy-'));
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', path.join(dir, 'almanac.key'), '-out', path.join(dir, 'almanac.crt')],
    { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    ca = readFileSync(path.join(dir, 'almanac.crt'));
    mkdirSync(webapp());
    writeFileSync(path.join(webapp(), 'index.html'), WEBAPP_INDEX);

    // SQLite is one server's; PostgreSQL is shared by two.
    const databaseUrl = ctx.engine === 'sqlite' ? `sqlite:${path.join(dir, 'almanac.db')}` : ctx.url;
    const env = { DATABASE_URL: databaseUrl, ALMANAC_TRUST_PROXY: '127.0.0.1', LOG_LEVEL: 'info', ALMANAC_REQUEST_LOG: 'all' };
    const pw = await runCli(['password', 'set', '--user', 'datahub'], env, `${PASSWORD}\n`);
    assert.equal(pw.code, 0, pw.stderr);
    const t = await runCli(['token', 'create', '--user', 'datahub'], env);
    assert.equal(t.code, 0, t.stderr);
    token = t.stdout.trim();
    for (let i = 0; i < (ctx.engine === 'sqlite' ? 1 : 2); i++) servers.push(await startServer(env, ['--webapp-dir', webapp()]));

    const httpsPort = await freePort();
    writeFileSync(path.join(dir, 'nginx.conf'), nginxConfig(dir, httpsPort, await freePort(), servers.map((s) => s.base.slice('http://'.length))));
    const check = spawnSync(NGINX, ['-t', '-q', '-e', path.join(dir, 'error.log'), '-p', dir, '-c', path.join(dir, 'nginx.conf')], { encoding: 'utf8' });
    assert.equal(check.status, 0, `nginx -t: ${check.stderr}`);
    nginx = spawn(NGINX, ['-g', 'daemon off;', '-e', path.join(dir, 'error.log'), '-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: 'ignore' });
    base = `https://127.0.0.1:${httpsPort}`;
    for (let i = 0; ; i++) {
      if (await request('GET', '/health').then((r) => r.status === 200, () => false)) break;
      assert.ok(i < 200 && nginx.exitCode === null, `nginx starts: ${existsSync(path.join(dir, 'error.log')) ? readFileSync(path.join(dir, 'error.log'), 'utf8') : ''}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  after(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((r) => nginx!.on('exit', r));
      nginx.kill('SIGQUIT'); // graceful: open streams are closed
      await exited;
    }
    for (const s of servers) {
      s.child.kill('SIGTERM');
      await s.exited;
    }
    servers = [];
    rmSync(dir, { recursive: true, force: true });
  });

  test('signing in through nginx over HTTPS sets Secure session cookies, and the session works for the web app\'s GraphQL', async () => {
    const login = await request('POST', '/logIn', { 'content-type': 'application/json' }, JSON.stringify({ username: 'datahub', password: PASSWORD }));
    assert.equal(login.status, 200, login.body);
    const attrs = cookieAttributes(login.headers);
    assert.deepEqual(attrs, SESSION_ATTRS(attrs.actor![0]!, true));
    const cookie = (login.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
    const me = async () => {
      const res = await request('POST', '/api/v2/graphql', { 'content-type': 'application/json', cookie },
        JSON.stringify({ query: '{ me { corpUser { urn username } } }' }));
      assert.deepEqual([res.status, JSON.parse(res.body)], [200, { data: { me: { corpUser: { urn: 'urn:li:corpuser:datahub', username: 'datahub' } } }, extensions: {} }]);
    };
    // nginx spreads the requests over the servers (round robin), and the session holds on each.
    const answered = () => servers.filter((s) => s.log().includes('"path":"/api/v2/graphql"')).length;
    for (let i = 0; i < 40 && (i < 4 || answered() < servers.length); i++) await me();
    // A server logs a request as it answers it: its line may arrive just after the answer.
    for (let i = 0; i < 40 && answered() < servers.length; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(answered(), servers.length, `each server answered some of the requests; nginx's log: ${readFileSync(path.join(dir, 'error.log'), 'utf8')}`);
  });

  test('DataHub\'s web app routes, Almanac\'s UI under /almanac/ and GraphiQL come through', async () => {
    for (const route of ['/', '/search?query=orders', '/dataset/urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)/Schema']) {
      const page = await request('GET', route);
      assert.deepEqual([page.status, page.headers['content-type'], page.body], [200, 'text/html; charset=utf-8', WEBAPP_INDEX], route);
    }
    const ui = await request('GET', '/almanac/');
    assert.deepEqual([ui.status, ui.body], [200, rewriteIndex(readFileSync(path.join(REPO, 'ui/dist/index.html'), 'utf8'), '/almanac')]);
    const graphiql = await request('GET', '/api/graphiql');
    assert.equal(graphiql.status, 200);
    const scripts = [...graphiql.body.matchAll(/src="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(scripts.length >= 3, `GraphiQL's page names its scripts: ${graphiql.body}`);
    for (const s of scripts) assert.equal((await request('GET', new URL(s, `${base}/api/graphiql`).pathname)).status, 200, s);
  });

  test('an ingestion body of 12 MiB passes; one larger than 16 MiB is refused by nginx with 413', async () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.big,PROD)';
    const description = 'x'.repeat(12 * 1024 * 1024);
    const proposal = (d: string) => JSON.stringify({ proposal: { entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName: 'datasetProperties',
      aspect: { contentType: 'application/json', value: JSON.stringify({ description: d, customProperties: {} }) } } });
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const ok = await request('POST', '/aspects?action=ingestProposal', auth, proposal(description));
    assert.deepEqual([ok.status, JSON.parse(ok.body)], [200, { value: urn }]);
    const stored = await request('GET', `/aspects/${encodeURIComponent(urn)}?aspect=datasetProperties&version=0`, { authorization: `Bearer ${token}` });
    assert.equal(stored.status, 200);
    assert.equal(JSON.parse(stored.body).aspect['com.linkedin.dataset.DatasetProperties'].description.length, description.length);
    const tooLarge = await request('POST', '/aspects?action=ingestProposal', auth, proposal('x'.repeat(17 * 1024 * 1024)));
    assert.equal(tooLarge.status, 413);
    assert.match(tooLarge.body, /<center>nginx(\/[\d.]+)?<\/center>/, 'refused by nginx, before it reaches Almanac');
  });

  test('the change log streams through nginx as Server-Sent Events, each event as it is written', async () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.streamed,PROD)';
    let received = '';
    let response: import('node:http').IncomingMessage | undefined;
    const req = https.request(new URL('/api/changes?aspect=globalTags', base), { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, ca },
      (res) => {
        response = res;
        res.setEncoding('utf8');
        res.on('data', (d: string) => (received += d));
      });
    req.end();
    const until = async (what: string, check: () => boolean) => {
      for (let i = 0; !check(); i++) {
        assert.ok(i < 600, `timed out waiting for ${what}; received: ${received}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      await until('the stream to open', () => received.includes(': Almanac change log after offset'));
      assert.deepEqual([response!.statusCode, response!.headers['content-type']], [200, 'text/event-stream; charset=utf-8']);
      // Written through the last server (the other one when there are two): the stream gets it while still open.
      const put = await fetch(`${servers.at(-1)!.base}/aspects?action=ingestProposal`, { method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ proposal: { entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName: 'globalTags',
          aspect: { contentType: 'application/json', value: JSON.stringify({ tags: [{ tag: 'urn:li:tag:streamed' }] }) } } }) });
      assert.equal(put.status, 200);
      await until('the event', () => received.includes('\n\n') && received.includes('event: MetadataChangeLog'));
      const event = /event: MetadataChangeLog\ndata: (.*)\n\n/.exec(received);
      assert.ok(event, received);
      const data = JSON.parse(event[1]!);
      assert.deepEqual([data.entityUrn, data.aspectName, data.changeType, JSON.parse(data.aspect.value)],
        [urn, 'globalTags', 'UPSERT', { tags: [{ tag: 'urn:li:tag:streamed' }] }]);
    } finally {
      req.destroy();
    }
  });
});
