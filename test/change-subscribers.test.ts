import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { rootActor } from '../src/model/actor.js';
import { openCatalog } from '../src/catalog.js';
import type { ChangeItem } from '../src/services/ingest-format.js';
import type { PolicyInfo } from '../src/services/policies.js';
import { startApp, type TestApp } from './support/app.js';
import { forEachEngine, freshSharedDatabaseUrl } from './support/engines.js';

/**
 * Issue 16's subscribers: GET /api/changes (paged JSON and Server-Sent Events, resumed with Last-Event-ID) and
 * webhooks (signed, retried, dead letters), each receiving only what the subscriber may read. Real HTTP throughout
 * the streams and the webhook receivers.
 */
const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const A = ds('subscribers_a');
const B = ds('subscribers_b');
const BOB = 'urn:li:corpuser:bob';
const CAROL = 'urn:li:corpuser:carol';
const upsert = (urn: string, aspect: string, value: unknown, entityType = 'dataset'): ChangeItem =>
  ({ urn, entityType, aspect, changeType: 'UPSERT', value, systemMetadata: null });
const json = (value: unknown) => ({ value: JSON.stringify(value), contentType: 'application/json' });

/** Waits for a condition, failing after a bound (no timing is asserted). */
async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface SseEvent { id: string; event: string; data: any }

/** A Server-Sent Events client over node:http: events and comments as they come. */
class Stream {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  status = 0;
  private buffer = '';
  private req?: http.ClientRequest;
  ended = false;

  static async open(port: number, headers: Record<string, string>, query = ''): Promise<Stream> {
    const s = new Stream();
    await new Promise<void>((resolve, reject) => {
      s.req = http.get({ host: '127.0.0.1', port, path: `/api/changes${query}`, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
        s.status = res.statusCode ?? 0;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => s.feed(chunk));
        res.on('end', () => { s.ended = true; });
        res.on('error', () => { s.ended = true; });
        resolve();
      });
      s.req.on('error', reject);
    });
    // The first comment comes once the stream's start is fixed: writes after it are the stream's to deliver.
    if (s.status === 200) await until('the stream\'s first line', () => (s.comments.length > 0 ? true : undefined));
    return s;
  }

  private feed(chunk: string) {
    this.buffer += chunk;
    let i: number;
    while ((i = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, i);
      this.buffer = this.buffer.slice(i + 2);
      const e: Partial<SseEvent> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
        else if (line.startsWith('id: ')) e.id = line.slice(4);
        else if (line.startsWith('event: ')) e.event = line.slice(7);
        else if (line.startsWith('data: ')) e.data = JSON.parse(line.slice(6));
      }
      if (e.event) this.events.push(e as SseEvent);
    }
  }

  take(n: number): Promise<SseEvent[]> {
    return until(`${n} events`, () => (this.events.length >= n ? this.events.slice(0, n) : undefined));
  }

  close() {
    this.req?.destroy();
  }
}

/** A webhook receiver: answers each request with the status `answer` gives, and keeps every request. */
async function receiver(answer: (n: number) => number) {
  const requests: { headers: http.IncomingHttpHeaders; body: string; status: number }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => { body += c; });
    req.on('end', () => {
      const status = answer(requests.length);
      requests.push({ headers: req.headers, body, status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    requests,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

forEachEngine('change log subscribers: /api/changes and webhooks', (ctx) => {
  let t: TestApp;
  let port: number;
  let bob: Record<string, string>;
  let carol: Record<string, string>;
  const dispatcherErrors: unknown[] = [];
  const ingest = (...items: ChangeItem[]) => t.catalog.entities.ingest(items, rootActor());
  const get = async (url: string, headers: Record<string, string> = t.auth) => {
    const res = await t.app.inject({ method: 'GET', url, headers });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
  };
  /** The events after an offset as root reads them (the JSON form), to compare the other surfaces with. */
  const eventsAfter = async (since: number, query = '') => (await get(`/api/changes?since=${since}&limit=1000${query}`)).body.events as any[];
  const withoutOffset = ({ offset: _o, ...rest }: any) => rest;

  before(async () => {
    t = await startApp(ctx);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
    const user = (urn: string, name: string) => upsert(urn, 'corpUserInfo', { active: true, displayName: name, email: `${name}@example.com` }, 'corpuser');
    await ingest(user(BOB, 'bob'), user(CAROL, 'carol'), upsert(A, 'status', { removed: false }), upsert(B, 'status', { removed: false }));
    // Nobody reads everything by default any more; bob reads dataset A only, and may follow the log and keep webhooks.
    const viewAll = await t.catalog.policies.get('urn:li:dataHubPolicy:view-entity-page-all');
    const policy = (urn: string, value: unknown) => upsert(urn, 'dataHubPolicyInfo', value, 'dataHubPolicy');
    await ingest(
      policy(viewAll.urn, { ...viewAll.info, state: 'INACTIVE' }),
      policy('urn:li:dataHubPolicy:bob-platform', { displayName: 'Bob follows', type: 'PLATFORM', state: 'ACTIVE', editable: true,
        privileges: ['VIEW_CHANGE_LOG', 'MANAGE_WEBHOOKS'], actors: { users: [BOB] } }),
      policy('urn:li:dataHubPolicy:bob-reads-a', { displayName: 'Bob reads A', type: 'METADATA', state: 'ACTIVE', editable: true,
        privileges: ['VIEW_ENTITY_PAGE'], actors: { users: [BOB] }, resources: { type: 'dataset', resources: [A], allResources: false } }),
    );
    bob = { authorization: `Bearer ${await t.tokenFor('bob')}` };
    carol = { authorization: `Bearer ${await t.tokenFor('carol')}` };
    t.catalog.webhooks.options = { attempts: 5, baseDelayMs: 10, maxDelayMs: 40, timeoutMs: 5000, pollMs: 100, standbyMs: 100 };
    t.catalog.webhooks.onError = (e) => dispatcherErrors.push(e);
    t.catalog.webhooks.start();
  });
  after(async () => t?.close());

  test('JSON pages: whole MetadataChangeLog events with their offsets, filters, and no credentials', async () => {
    const head = (await get('/api/changes')).body.head as number;
    assert.deepEqual((await get('/api/changes?format=json')).body, { events: [], next: head, head }, 'from the head by default');
    await ingest(upsert(A, 'datasetProperties', { name: 'a', customProperties: {} }));
    await t.catalog.entities.ingest([{ ...upsert(A, 'status', { removed: true }), systemMetadata: { runId: 'run-1', lastObserved: 7 } }], rootActor());
    await ingest(upsert(CAROL, 'corpUserCredentials', { salt: 's', hashedPassword: 'h' }, 'corpuser'));
    await ingest(upsert(B, 'datasetProperties', { name: 'b', customProperties: {} }));
    const stored = await t.catalog.store.changesAfter(head, 100, true);
    assert.deepEqual(stored.map((e) => e.aspect), ['datasetProperties', 'status', 'corpUserCredentials', 'datasetProperties']);
    const [p1, s1, cred, p2] = stored;
    const created = (e: typeof p1) => ({ time: e!.time, actor: 'urn:li:corpuser:datahub' });
    // Sent without system metadata: DataHub's default is stored and sent (issue 29); with it, the run is also the last run.
    const defaults = (e: typeof p1) => ({ runId: 'no-run-id-provided', lastObserved: e!.systemMetadata?.lastObserved, lastRunId: 'no-run-id-provided' });
    assert.equal(typeof p1!.systemMetadata?.lastObserved, 'number');
    assert.deepEqual([p1!.systemMetadata, p2!.systemMetadata], [defaults(p1), defaults(p2)]);

    const first = await get(`/api/changes?since=${head}&limit=2`);
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, {
      events: [
        { offset: p1!.seq, entityType: 'dataset', entityUrn: A, changeType: 'UPSERT', aspectName: 'datasetProperties',
          aspect: json({ name: 'a', customProperties: {} }), systemMetadata: defaults(p1), created: created(p1) },
        { offset: s1!.seq, entityType: 'dataset', entityUrn: A, changeType: 'UPSERT', aspectName: 'status', aspect: json({ removed: true }),
          previousAspectValue: json({ removed: false }), systemMetadata: { runId: 'run-1', lastObserved: 7, lastRunId: 'run-1' },
          previousSystemMetadata: s1!.previousSystemMetadata!, created: created(s1) },
      ],
      next: s1!.seq, head: p2!.seq,
    });
    // The next page: the credentials are never sent (not even to root), and the page's next passes them.
    assert.deepEqual((await get(`/api/changes?since=${first.body.next}&limit=2`)).body, {
      events: [{ offset: p2!.seq, entityType: 'dataset', entityUrn: B, changeType: 'UPSERT', aspectName: 'datasetProperties',
        aspect: json({ name: 'b', customProperties: {} }), systemMetadata: defaults(p2), created: created(p2) }],
      next: p2!.seq, head: p2!.seq,
    });
    assert.ok(cred!.seq > s1!.seq && cred!.seq < p2!.seq, 'the credentials change comes between the two writes');
    // Filters, repeatable.
    assert.deepEqual((await get(`/api/changes?since=${head}&entityType=dataset&aspect=status&aspect=ownership`)).body.events.map((e: any) => e.offset),
      [s1!.seq]);
    assert.deepEqual((await get(`/api/changes?since=${head}&entityType=corpuser`)).body, { events: [], next: p2!.seq, head: p2!.seq });
    // Mistakes are 400s.
    for (const [query, message] of [
      ['limit=0', "limit must be a whole number between 1 and 1000, got '0'"],
      ['entityType=nothing', "Unknown entity type 'nothing'"],
      ['aspect=nothing', "Unknown aspect 'nothing'"],
      ['format=xml', "format must be json or sse, got 'xml'"],
      [`since=${p2!.seq + 1}`, `Offset ${p2!.seq + 1} is past the newest change (${p2!.seq})`],
    ]) {
      const r = await get(`/api/changes?${query}`);
      assert.equal(r.status, 400, query);
      assert.equal(r.body.message, message);
    }
  });

  test('without VIEW_CHANGE_LOG: 403 for the log, the stream and webhooks', async () => {
    const forbidden = { status: 403, code: 'FORBIDDEN', message: 'Unauthorized to perform this action. Please contact your DataHub administrator.' };
    const r = await get('/api/changes?since=0', carol);
    assert.equal(r.status, 403);
    assert.deepEqual({ status: r.body.status, code: r.body.code, message: r.body.message }, forbidden);
    const s = await Stream.open(port, carol);
    assert.equal(s.status, 403);
    s.close();
    const post = await t.app.inject({ method: 'POST', url: '/api/webhooks', headers: carol, payload: { url: 'http://127.0.0.1:9/x' } });
    assert.equal(post.statusCode, 403);
    assert.equal((await get('/api/webhooks', carol)).status, 403);
  });

  test('SSE: writes made after connecting arrive as MetadataChangeLog events, as the JSON form shows them', async () => {
    const head = await t.catalog.store.lastChangeSeq();
    const s = await Stream.open(port, t.auth);
    try {
      assert.equal(s.status, 200);
      await ingest(upsert(A, 'globalTags', { tags: [{ tag: 'urn:li:tag:one' }] }));
      await ingest(upsert(B, 'globalTags', { tags: [{ tag: 'urn:li:tag:two' }] }));
      const got = await s.take(2);
      const expected = (await eventsAfter(head, '&entityType=dataset&aspect=globalTags'));
      assert.equal(expected.length, 2);
      assert.deepEqual(got, expected.map((e) => ({ id: String(e.offset), event: 'MetadataChangeLog', data: withoutOffset(e) })));
      assert.deepEqual(got.map((e) => [e.data.entityUrn, e.data.aspect.value]),
        [[A, '{"tags":[{"tag":"urn:li:tag:one"}]}'], [B, '{"tags":[{"tag":"urn:li:tag:two"}]}']]);
    } finally {
      s.close();
    }
  });

  test('SSE resume with Last-Event-ID after a disconnect: nothing lost, nothing repeated', async () => {
    const note = (urn: string, n: number) => upsert(urn, 'editableDatasetProperties', { description: `note ${n}` });
    const first = await Stream.open(port, t.auth, '?entityType=dataset&aspect=editableDatasetProperties');
    await ingest(note(A, 1));
    const [e1] = await first.take(1);
    first.close();
    await until('the stream to end', () => (first.ended ? true : undefined));
    // Written while no one listens.
    await ingest(note(A, 2));
    await ingest(note(B, 3));
    // Last-Event-ID wins over since (0 would start from the oldest kept).
    const resumed = await Stream.open(port, { ...t.auth, 'last-event-id': e1!.id }, '?since=0&entityType=dataset&aspect=editableDatasetProperties');
    try {
      await ingest(note(B, 4));
      const got = await resumed.take(3);
      assert.deepEqual(got.map((e) => [e.data.entityUrn, JSON.parse(e.data.aspect.value).description]),
        [[A, 'note 2'], [B, 'note 3'], [B, 'note 4']]);
      const ids = [e1!, ...got].map((e) => Number(e.id));
      assert.deepEqual(ids, [...ids].sort((x, y) => x - y));
      assert.equal(new Set(ids).size, 4);
    } finally {
      resumed.close();
    }
  });

  test('a subscriber never sees the events of an entity they may not read', async () => {
    const head = await t.catalog.store.lastChangeSeq();
    const s = await Stream.open(port, bob, '?aspect=institutionalMemory');
    try {
      const links = (url: string) => ({ elements: [{ url, description: url, createStamp: { time: 1, actor: 'urn:li:corpuser:datahub' } }] });
      await ingest(upsert(B, 'institutionalMemory', links('https://b.example/1')));
      await ingest(upsert(A, 'institutionalMemory', links('https://a.example/1')));
      await ingest(upsert(B, 'institutionalMemory', links('https://b.example/2')));
      await ingest(upsert(A, 'institutionalMemory', links('https://a.example/2')));
      const got = await s.take(2);
      assert.deepEqual(got.map((e) => [e.data.entityUrn, JSON.parse(e.data.aspect.value).elements[0].url]),
        [[A, 'https://a.example/1'], [A, 'https://a.example/2']]);
      // Root sees all four; bob's JSON page the same two as his stream.
      assert.equal((await eventsAfter(head, '&aspect=institutionalMemory')).length, 4);
      const bobs = (await get(`/api/changes?since=${head}&aspect=institutionalMemory`, bob)).body;
      assert.deepEqual(bobs.events.map(withoutOffset), got.map((e) => e.data));
      assert.equal(s.events.length, 2);
    } finally {
      s.close();
    }
  });

  test('a webhook receiver that fails 3 times then succeeds gets each event once accepted, signed, in order', async () => {
    const rx = await receiver((n) => (n < 3 ? 500 : 200));
    try {
      const head = await t.catalog.store.lastChangeSeq();
      const res = await t.app.inject({ method: 'POST', url: '/api/webhooks', headers: t.auth,
        payload: { url: rx.url, entityTypes: ['dataset'], aspects: ['datasetProperties', 'status'], description: 'flaky' } });
      assert.equal(res.statusCode, 201);
      const created = JSON.parse(res.body);
      const { secret, id, createdOn } = created;
      assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(created, { id, url: rx.url, entityTypes: ['dataset'], aspects: ['datasetProperties', 'status'], description: 'flaky',
        createdBy: 'urn:li:corpuser:datahub', createdOn, offset: head, secret });
      await ingest(upsert(A, 'datasetProperties', { name: 'a2', customProperties: {} }));
      await ingest(upsert('urn:li:tag:unmatched', 'tagProperties', { name: 'unmatched' }, 'tag'));
      await ingest(upsert(B, 'status', { removed: true }));
      await ingest(upsert(A, 'globalTags', { tags: [] })); // another aspect: not sent
      await ingest(upsert(B, 'datasetProperties', { name: 'b2', customProperties: {} }));
      const expected = await eventsAfter(head, '&entityType=dataset&aspect=datasetProperties&aspect=status');
      assert.equal(expected.length, 3);
      await until('three deliveries accepted', () => (rx.requests.filter((r) => r.status === 200).length >= 3 ? true : undefined));
      const ids = expected.map((e) => String(e.offset));
      assert.deepEqual(rx.requests.map((r) => [r.headers['x-almanac-event-id'], r.status]),
        [[ids[0], 500], [ids[0], 500], [ids[0], 500], [ids[0], 200], [ids[1], 200], [ids[2], 200]]);
      for (const [i, r] of rx.requests.entries()) {
        const e = expected[Math.max(0, i - 3)];
        assert.deepEqual(JSON.parse(r.body), withoutOffset(e));
        assert.equal(r.headers['x-almanac-signature'], `sha256=${createHmac('sha256', secret).update(r.body).digest('hex')}`);
        assert.equal(r.headers['content-type'], 'application/json');
        assert.equal(r.headers['x-almanac-webhook-id'], id);
      }
      // Accepted: the offset moved past each, nothing dead.
      const last = expected[2].offset;
      await until('the offset to move', async () => ((await get(`/api/webhooks/${id}`)).body.offset === last ? true : undefined));
      assert.deepEqual((await get(`/api/webhooks/${id}/dead-letters`)).body, { deadLetters: [], next: 0 });
      const listed = (await get('/api/webhooks')).body.webhooks.find((w: any) => w.id === id);
      assert.deepEqual(listed, { id, url: rx.url, entityTypes: ['dataset'], aspects: ['datasetProperties', 'status'], description: 'flaky',
        createdBy: 'urn:li:corpuser:datahub', createdOn, offset: last });
      // Removed: gone from the list, its consumer too.
      assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/webhooks/${id}`, headers: t.auth })).statusCode, 204);
      assert.equal((await get(`/api/webhooks/${id}`)).status, 404);
      assert.equal((await t.catalog.store.consumerOffsets()).has(`webhook:${id}`), false);
    } finally {
      await rx.close();
    }
  });

  test('a receiver that always fails: each event becomes a dead letter after its attempts, and the offset moves on', async () => {
    const rx = await receiver(() => 503);
    try {
      t.catalog.webhooks.options = { ...t.catalog.webhooks.options, attempts: 3 };
      const res = await t.app.inject({ method: 'POST', url: '/api/webhooks', headers: t.auth, payload: { url: rx.url, aspects: ['deprecation'] } });
      const { id } = JSON.parse(res.body);
      const head = await t.catalog.store.lastChangeSeq();
      await ingest(upsert(A, 'deprecation', { deprecated: true, note: 'old', actor: 'urn:li:corpuser:datahub' }));
      await ingest(upsert(B, 'deprecation', { deprecated: false, note: '', actor: 'urn:li:corpuser:datahub' }));
      const expected = await eventsAfter(head, '&aspect=deprecation');
      const letters = await until<any>('two dead letters', async () => {
        const body = (await get(`/api/webhooks/${id}/dead-letters`)).body;
        return body.deadLetters.length >= 2 ? body : undefined;
      });
      assert.deepEqual(letters, {
        deadLetters: expected.map((e, i) => ({ id: letters.deadLetters[i].id, offset: e.offset, at: letters.deadLetters[i].at, attempts: 3,
          status: 503, error: 'The receiver answered HTTP 503', event: withoutOffset(e) })),
        next: letters.deadLetters[1].id,
      });
      assert.deepEqual(rx.requests.map((r) => r.headers['x-almanac-event-id']),
        [0, 0, 0, 1, 1, 1].map((i) => String(expected[i]!.offset)));
      assert.equal((await get(`/api/webhooks/${id}`)).body.offset, expected[1].offset);
      // Paged by id.
      assert.deepEqual((await get(`/api/webhooks/${id}/dead-letters?after=${letters.deadLetters[0]!.id}&limit=5`)).body.deadLetters
        .map((d: any) => d.offset), [expected[1].offset]);
      await t.app.inject({ method: 'DELETE', url: `/api/webhooks/${id}`, headers: t.auth });
    } finally {
      t.catalog.webhooks.options = { ...t.catalog.webhooks.options, attempts: 5 };
      await rx.close();
    }
  });

  test('a webhook delivers only what its creator may read', async () => {
    const rx = await receiver(() => 204);
    try {
      const res = await t.app.inject({ method: 'POST', url: '/api/webhooks', headers: bob, payload: { url: rx.url, aspects: ['subTypes'] } });
      assert.equal(res.statusCode, 201);
      const { id } = JSON.parse(res.body);
      await ingest(upsert(B, 'subTypes', { typeNames: ['View'] }));
      await ingest(upsert(A, 'subTypes', { typeNames: ['Table'] }));
      await ingest(upsert(B, 'subTypes', { typeNames: ['Table'] }));
      await ingest(upsert(A, 'subTypes', { typeNames: ['View'] }));
      await until('two deliveries', () => (rx.requests.length >= 2 ? true : undefined));
      const head = await t.catalog.store.lastChangeSeq();
      await until('the offset to reach the head', async () => ((await get(`/api/webhooks/${id}`)).body.offset === head ? true : undefined));
      assert.deepEqual(rx.requests.map((r) => [JSON.parse(r.body).entityUrn, JSON.parse(r.body).aspect.value]),
        [[A, '{"typeNames":["Table"]}'], [A, '{"typeNames":["View"]}']]);
      await t.app.inject({ method: 'DELETE', url: `/api/webhooks/${id}`, headers: bob });
    } finally {
      await rx.close();
    }
  });

  test('an offset whose successors were trimmed is refused with 409; the head and 0 still work', async () => {
    await ingest(upsert(A, 'status', { removed: false }));
    const head = await t.catalog.store.lastChangeSeq();
    // Everything every consumer has applied goes.
    await t.catalog.store.trimChanges(Date.now() + 60_000, 1_000_000);
    const oldest = (await t.catalog.store.firstChangeSeq()) ?? head + 1;
    assert.ok(oldest > 2, `the oldest offset kept is ${oldest}`);
    const r = await get(`/api/changes?since=${oldest - 2}`);
    assert.equal(r.status, 409);
    assert.deepEqual(r.body.code, 'CONFLICT');
    assert.match(r.body.message, new RegExp(`^The changes after offset ${oldest - 2} are no longer kept: the oldest kept is ${oldest}\\.`));
    const s = await Stream.open(port, { ...t.auth, 'last-event-id': String(oldest - 2) });
    assert.equal(s.status, 409);
    s.close();
    assert.equal((await get(`/api/changes?since=${oldest - 1}`)).status, 200);
    assert.equal((await get('/api/changes?since=0')).status, 200);
  });

  test('closing the server ends its open streams', async () => {
    const other = await createApp(t.catalog, { logger: false });
    await other.listen({ host: '127.0.0.1', port: 0 });
    const s = await Stream.open((other.server.address() as AddressInfo).port, t.auth);
    assert.equal(s.status, 200);
    // Without ending its streams, closing would wait for every subscriber to leave.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([other.close(), new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('close waited on the stream')), 10_000); })]);
    clearTimeout(timer);
    await until('the stream to end', () => (s.ended ? true : undefined));
  });

  test('the webhook dispatcher met no error', () => {
    assert.deepEqual(dispatcherErrors, []);
  });
});

forEachEngine('change log subscribers: an existing catalog\'s built-in policies gain the new privileges', (ctx) => {
  let cleanup = async () => {};
  before(async () => {
    // SQLite on a file, so that the catalog can be opened twice.
    if (ctx.engine === 'sqlite') ({ url: ctx.url, cleanup } = await freshSharedDatabaseUrl('sqlite'));
  });
  after(async () => cleanup());

  test('reopening adds VIEW_CHANGE_LOG and MANAGE_WEBHOOKS to the root and Admin policies, and changes nothing else', async () => {
    const config = loadConfig({ DATABASE_URL: ctx.url, LOG_LEVEL: 'silent' });
    const NEW = ['VIEW_CHANGE_LOG', 'MANAGE_WEBHOOKS'];
    const urns = ['urn:li:dataHubPolicy:0', 'urn:li:dataHubPolicy:admin-platform-policy'];
    const first = await openCatalog(config);
    const before: Record<string, PolicyInfo> = {};
    try {
      // As an earlier Almanac stored them: without the new privileges, and (root's) switched off.
      for (const urn of urns) {
        const { info } = await first.policies.get(urn);
        before[urn] = { ...info, privileges: info.privileges.filter((p) => !NEW.includes(p)), state: urn.endsWith(':0') ? 'INACTIVE' : 'ACTIVE' };
        await first.entities.ingest([upsert(urn, 'dataHubPolicyInfo', before[urn], 'dataHubPolicy')], rootActor());
      }
    } finally {
      await first.close();
    }
    const second = await openCatalog(config);
    try {
      for (const urn of urns) {
        const { info } = await second.policies.get(urn);
        const { lastUpdatedTimestamp: _a, ...rest } = info;
        const { lastUpdatedTimestamp: _b, ...old } = before[urn]!;
        assert.deepEqual(rest, { ...old, privileges: [...old.privileges, ...NEW] });
      }
      // Opened again: nothing more to add, nothing written.
      const head = await second.store.lastChangeSeq();
      await second.policies.bootstrap(rootActor());
      assert.equal(await second.store.lastChangeSeq(), head);
    } finally {
      await second.close();
    }
  });
});
