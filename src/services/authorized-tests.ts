import type { Actor } from '../model/actor.js';
import { REQUIRES } from '../model/privileges.js';
import { Guarded, requireRead, type Authorizer } from './authz.js';
import type { MetadataTestService, TestInput } from './metadata-tests/runner.js';

/**
 * Metadata tests as the transports reach them: viewing, explaining, running and managing tests, each deciding who may
 * before it runs. Evaluating an entity reads it, so it needs what reading the entity needs first.
 */
export class AuthorizedMetadataTests extends Guarded {
  constructor(private readonly tests: MetadataTestService, authz: Authorizer) {
    super(authz);
  }

  /** Query.test: VIEW_TESTS (or MANAGE_TESTS, or a view of entities); the test itself is then read as an entity. */
  async admitViewer(actor: Actor): Promise<void> {
    await this.require(actor, 'graphql.viewTests');
  }

  async list(actor: Actor, query?: string) {
    await this.require(actor, 'graphql.viewTests');
    return this.tests.all(query);
  }

  /** explainTests: why the entity passes or fails each test, nothing stored. */
  async explain(actor: Actor, urn: string) {
    await requireRead(this.authz, actor, REQUIRES['graphql.read'], urn);
    await this.require(actor, 'graphql.explainTests', urn);
    return this.tests.evaluate(urn, { push: false, explain: true }, actor);
  }

  /** runTests: the entity evaluated and its results stored. */
  async run(actor: Actor, urn: string, explain: boolean) {
    await requireRead(this.authz, actor, REQUIRES['graphql.read'], urn);
    await this.require(actor, 'graphql.manageTests');
    return this.tests.evaluate(urn, { push: true, explain }, actor);
  }

  async runAll(actor: Actor) {
    await this.require(actor, 'graphql.manageTests');
    return this.tests.runAll({ push: true }, actor);
  }

  async create(actor: Actor, input: TestInput): Promise<string> {
    await this.require(actor, 'graphql.manageTests');
    return this.tests.create(input, actor);
  }

  async update(actor: Actor, urn: string, input: TestInput): Promise<string> {
    await this.require(actor, 'graphql.manageTests');
    return this.tests.update(urn, input, actor);
  }

  async delete(actor: Actor, urn: string): Promise<void> {
    await this.require(actor, 'graphql.manageTests');
    await this.tests.delete(urn);
  }

  /**
   * REST test evaluation of an entity: it must be readable, and storing the results (push) needs MANAGE_TESTS. The
   * tests to run are read from the request once the caller is admitted.
   */
  async evaluate(actor: Actor, urn: string, opts: { push: boolean; explain: boolean }, testUrns: () => string[] | undefined) {
    await this.admitEvaluation(actor, [urn], opts.push);
    return this.tests.evaluate(urn, { ...opts, testUrns: testUrns() }, actor);
  }

  /** The same, for several entities at once (batchEvaluate). */
  async evaluateMany(actor: Actor, urns: string[], opts: { push: boolean; explain: boolean }, testUrns: () => string[] | undefined) {
    await this.admitEvaluation(actor, urns, opts.push);
    return this.tests.evaluateMany(urns, { ...opts, testUrns: testUrns() }, actor);
  }

  private async admitEvaluation(actor: Actor, urns: string[], push: boolean) {
    for (const urn of urns) await requireRead(this.authz, actor, REQUIRES['rest.evaluateTests'], urn);
    if (push) await this.require(actor, 'rest.pushTestResults');
  }
}
