import { badRequest, conflict, notFound } from '../../errors.js';
import { entityHasAspect, entitySpec } from '../../registry/registry.js';
import { parseUrn } from '../../model/urn.js';
import type { Store } from '../../storage/types.js';
import type { Actor } from '../../model/actor.js';
import type { EntityService } from '../entities.js';
import { parseTestDefinition, type TestDefinition } from './definition.js';
import { evaluateTests, targetsEntityType, type TestsOutcome } from './evaluate.js';
import { testInfo } from '../../entities/test.js';

/**
 * Metadata tests as a catalog feature: `test` entities with a `testInfo` aspect, evaluated against one entity
 * (or many), with results pushed to the entity's `testResults` aspect on request. Definitions are compiled once
 * per stored text; definitions that cannot be compiled (DataHub's samples store "{}") are skipped with a warning.
 */
export interface TestInfo {
  name: string;
  category: string;
  description?: string;
  definition: { type: 'JSON' | 'YAML'; json?: string };
}

export interface TestInput {
  id?: string | null;
  name: string;
  category: string;
  description?: string | null;
  definition: { json: string; type?: 'JSON' | 'YAML' | null };
}

export interface EvaluateOptions {
  testUrns?: string[];
  push?: boolean;
  explain?: boolean;
}

type Compiled = { text: string; def: TestDefinition | null; error?: string };

export class MetadataTestService {
  private readonly compiled = new Map<string, Compiled>();

  /**
   * Where warnings go: the CLI prints them as plain lines on stderr (openCatalog's default); the server replaces this
   * with its JSON logger (createApp), so that they come out as log lines with the test urn as a field.
   */
  warn: (message: string, fields: { testUrn: string; reason: string }) => void;

  constructor(private readonly entities: EntityService, private readonly store: Store,
    warn: (message: string, fields: { testUrn: string; reason: string }) => void) {
    this.warn = warn;
  }

  private static info(input: TestInput): TestInfo {
    if (!input.name?.trim()) throw badRequest('A test needs a name');
    if (!input.category?.trim()) throw badRequest('A test needs a category');
    if (typeof input.definition?.json !== 'string') throw badRequest('definition.json must be the definition text');
    // YAML is accepted as well as JSON: without a stated type, text that is not a JSON object or list is YAML.
    const type = input.definition.type ?? (/^\s*[{[]/.test(input.definition.json) ? 'JSON' : 'YAML');
    if (type !== 'JSON' && type !== 'YAML') throw badRequest(`definition.type must be JSON or YAML, got '${type}'`);
    parseTestDefinition(input.definition.json, type); // refuses an invalid definition with where and what
    return { name: input.name, category: input.category, ...(input.description != null ? { description: input.description } : {}),
      definition: { type, json: input.definition.json } };
  }

  async create(input: TestInput, actor: Actor): Promise<string> {
    const info = MetadataTestService.info(input);
    const id = input.id ?? crypto.randomUUID();
    if (!id.trim() || /[\s,()]/.test(id)) throw badRequest(`Test id '${id}' must be non-empty and contain no spaces, commas or parentheses`);
    const urn = parseUrn(`urn:li:test:${id}`).raw;
    if (await this.entities.exists(urn)) throw conflict(`This Test already exists: ${urn}`, { urn });
    await this.entities.ingest([{ urn, entityType: 'test', aspect: 'testInfo', changeType: 'UPSERT', value: info, systemMetadata: null }], actor);
    return urn;
  }

  async update(urn: string, input: TestInput, actor: Actor): Promise<string> {
    const u = this.testUrn(urn);
    const info = MetadataTestService.info(input);
    await this.entities.writeToExisting(u, [testInfo], { testInfo: info }, actor);
    return u;
  }

  async delete(urn: string): Promise<void> {
    const u = this.testUrn(urn);
    await this.entities.requireExists(u);
    await this.entities.deleteEntity(u);
  }

  async get(urn: string): Promise<{ urn: string; info: TestInfo }> {
    const u = this.testUrn(urn);
    const info = (await this.entities.getLatest(u, ['testInfo'])).get('testInfo')?.value as TestInfo | undefined;
    if (!info) throw notFound(`Test ${u} does not exist`, { urn: u });
    return { urn: u, info };
  }

  /** Every stored test, by urn order; `query` filters on urn, name, category and description. */
  async all(query?: string): Promise<{ urn: string; info: TestInfo }[]> {
    const rows = await this.store.listEntities({ entityType: 'test' });
    const latest = await this.store.getLatest(rows.map((r) => r.urn), ['testInfo']);
    const q = query?.trim().toLowerCase();
    return rows.flatMap(({ urn }) => {
      const info = latest.get(urn)?.get('testInfo')?.value as TestInfo | undefined;
      if (!info) return [];
      if (q && q !== '*' && ![urn, info.name, info.category, info.description ?? ''].some((s) => s.toLowerCase().includes(q))) return [];
      return [{ urn, info }];
    });
  }

  private testUrn(urn: string): string {
    const u = parseUrn(urn);
    if (u.entityType !== 'test') throw badRequest(`'${urn}' is not a test urn (urn:li:test:<id>)`);
    return u.raw;
  }

  private compile(urn: string, info: TestInfo): Compiled {
    const text = info.definition?.json ?? '';
    const hit = this.compiled.get(urn);
    if (hit && hit.text === text) return hit;
    let c: Compiled;
    try {
      c = { text, def: parseTestDefinition(text, info.definition?.type ?? 'JSON') };
    } catch (e) {
      const reason = (e as Error).message;
      c = { text, def: null, error: reason };
      this.warn(`metadata test ${urn} is skipped: ${reason}`, { testUrn: urn, reason });
    }
    this.compiled.set(urn, c);
    return c;
  }

  /** The compiled tests to run: the named ones (404 naming any that does not exist), else every stored one. */
  private async tests(testUrns?: string[]): Promise<{ urn: string; def: TestDefinition }[]> {
    let list: { urn: string; info: TestInfo }[];
    if (testUrns?.length) {
      const urns = [...new Set(testUrns.map((u) => this.testUrn(u)))];
      const latest = await this.store.getLatest(urns, ['testInfo']);
      const missing = urns.filter((u) => !latest.get(u)?.has('testInfo'));
      if (missing.length) throw notFound(`Test ${missing.join(', ')} ${missing.length > 1 ? 'do' : 'does'} not exist`, { urns: missing });
      list = urns.map((urn) => ({ urn, info: latest.get(urn)!.get('testInfo')!.value as TestInfo }));
    } else {
      list = await this.all();
    }
    return list.flatMap(({ urn, info }) => {
      const c = this.compile(urn, info);
      return c.def ? [{ urn, def: c.def }] : [];
    });
  }

  /** Evaluates the tests against each entity; writes testResults when asked (replacing, or merging named tests). */
  async evaluateMany(urns: string[], opts: EvaluateOptions, actor: Actor): Promise<Map<string, TestsOutcome>> {
    const parsed = urns.map((u) => parseUrn(u));
    const existing = await this.store.existing(parsed.map((u) => u.raw));
    const missing = parsed.filter((u) => !existing.has(u.raw)).map((u) => u.raw);
    if (missing.length) throw notFound(`Entity ${missing.join(', ')} ${missing.length > 1 ? 'do' : 'does'} not exist`, { urns: missing });
    const tests = await this.tests(opts.testUrns);
    const latest = await this.store.getLatest(parsed.map((u) => u.raw));
    const out = new Map<string, TestsOutcome>();
    const writes = [];
    for (const u of parsed) {
      const recs = latest.get(u.raw) ?? new Map();
      const aspects = Object.fromEntries([...recs].map(([k, r]) => [k, r.value]));
      const entityType = entitySpec(u.entityType)?.name ?? u.entityType;
      const result = evaluateTests(tests, { urn: u.raw, entityType, aspects }, { explain: opts.explain });
      out.set(u.raw, result);
      if (opts.push) {
        const value = opts.testUrns?.length ? merge(aspects.testResults as TestResultsValue | undefined, result, tests.map((t) => t.urn))
          : { passing: result.passing, failing: result.failing };
        writes.push({ urn: u.raw, entityType, aspect: 'testResults', changeType: 'UPSERT' as const, value, systemMetadata: null });
      }
    }
    if (writes.length) await this.entities.ingest(writes, actor);
    return out;
  }

  async evaluate(urn: string, opts: EvaluateOptions, actor: Actor): Promise<TestsOutcome> {
    return (await this.evaluateMany([urn], opts, actor)).get(parseUrn(urn).raw)!;
  }

  /**
   * Evaluates every entity the tests select (optionally of one type), page by page, and counts per test.
   * `onProgress` is told how many entities were looked at so far and the total. With `push`, results are stored
   * on the entities whose type has a `testResults` aspect; the other types are evaluated and counted but named in
   * `unstoredTypes` instead of failing the run.
   */
  async runAll(opts: { push: boolean; entityType?: string; onProgress?: (done: number, total: number) => void }, actor: Actor) {
    const tests = await this.tests();
    const summary = new Map(tests.map((t) => [t.urn, { passing: 0, failing: 0 }]));
    const types = opts.entityType ? [entitySpec(opts.entityType)?.name ?? ''] : undefined;
    if (opts.entityType && !types![0]) throw badRequest(`Unknown entity type '${opts.entityType}'`);
    const total = await this.store.countEntities(types?.[0]);
    // A test created while the run goes on is counted from the page where it first appears.
    const count = (test: string) => summary.get(test) ?? summary.set(test, { passing: 0, failing: 0 }).get(test)!;
    const unstored = new Set<string>();
    let done = 0;
    let after: string | undefined;
    for (;;) {
      const rows = await this.store.listEntities({ entityType: types?.[0], after, count: 200 });
      if (rows.length === 0) break;
      const targeted = rows.filter((r) => tests.some((t) => targetsEntityType(t.def, r.entityType)));
      const stored = opts.push ? targeted.filter((r) => entityHasAspect(r.entityType, 'testResults')) : [];
      const unpushed = opts.push ? targeted.filter((r) => !entityHasAspect(r.entityType, 'testResults')) : targeted;
      if (opts.push) for (const r of unpushed) unstored.add(r.entityType);
      for (const [batch, push] of [[stored, true], [unpushed, false]] as const) {
        if (batch.length === 0) continue;
        const results = await this.evaluateMany(batch.map((r) => r.urn), { push }, actor);
        for (const r of results.values()) {
          for (const p of r.passing) count(p.test).passing++;
          for (const f of r.failing) count(f.test).failing++;
        }
      }
      done += rows.length;
      opts.onProgress?.(done, total);
      after = rows[rows.length - 1]!.urn;
    }
    return { entities: done, tests: [...summary].map(([urn, s]) => ({ urn, ...s })), unstoredTypes: [...unstored].sort() };
  }
}

type TestResultsValue = { passing?: { test: string; type: string }[]; failing?: { test: string; type: string }[] };

/** Stored results with the evaluated tests' entries replaced by the new ones. */
function merge(current: TestResultsValue | undefined, result: TestsOutcome, evaluated: string[]) {
  const drop = new Set(evaluated);
  const keep = (list?: { test: string; type: string }[]) => (list ?? []).filter((e) => !drop.has(e.test));
  return { passing: [...keep(current?.passing), ...result.passing], failing: [...keep(current?.failing), ...result.failing] };
}
