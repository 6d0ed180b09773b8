import { randomUUID } from 'node:crypto';
import { badRequest, conflict, forbidden, notFound } from '../errors.js';
import { dataProductProperties } from '../entities/data-product.js';
import { domainProperties } from '../entities/domain.js';
import type { AspectValue } from '../entities/descriptor.js';
import { glossaryNodeInfo } from '../entities/glossary-node.js';
import { glossaryRelatedTerms, glossaryTermInfo } from '../entities/glossary-term.js';
import { ownerEntry } from '../entities/ownership-types.js';
import { domains, glossaryTerms, ownership } from '../entities/shared-aspects.js';
import { parseUrn, tryParseUrn } from '../model/urn.js';
import type { Actor } from '../model/actor.js';
import { REQUIRES, type Operation } from '../model/privileges.js';
import { requirePrivilege, type Authorizer } from './authz.js';
import type { Store } from '../storage/types.js';
import type { EntityService } from './entities.js';
import type { FilterClause, SearchService } from './search.js';

/**
 * Domains, the business glossary and data products as DataHub 0.12.1's resolvers manage them: creation (the
 * creator made an owner), moves in the hierarchy, deletion, related terms and a product's assets. Who may do each is
 * decided here, first, with DataHub 0.12.1's privileges; every write goes through the entity service's locked edits,
 * and anything named that does not exist is a NOT_FOUND with nothing written.
 */
interface Services {
  authz: Authorizer;
  entities: EntityService;
  search: SearchService;
  store: Store;
}

const RELATION_FIELD = { isA: 'isRelatedTerms', hasA: 'hasRelatedTerms' } as const;

const stamp = (actor: Actor, time = Date.now()) => ({ time, actor: actor.urn });

/** The urn, checked to be of one entity type (a 400 otherwise). */
function typed(urn: string, entityType: string, what: string): string {
  const u = tryParseUrn(urn);
  if (typeof u === 'string' || u.entityType !== entityType) throw badRequest(`${what} '${urn}' is not a ${entityType} urn`, { urn });
  return u.raw;
}

/** An id given for a new entity's urn: not empty, and nothing that would break the urn. */
function newId(id: string | null | undefined, what: string): string {
  const v = id ?? randomUUID();
  if (!v.trim() || /[\s,()]/.test(v)) throw badRequest(`${what} id '${v}' must be non-empty and contain no spaces, commas or parentheses`);
  return v;
}

/** The top-level entities (no parent) or the children of one parent, through a search filter field. */
export function parentFilter(field: 'parentDomain' | 'parentNode', parent: string | null | undefined): FilterClause[][] {
  return [[parent ? { field, values: [parent] } : { field, values: [], condition: 'EXISTS', negated: true }]];
}

export class DomainsGlossaryService {
  constructor(private readonly s: Services) {}

  private async requireExisting(urn: string, what: string) {
    if (!(await this.s.entities.exists(urn))) throw notFound(`${what} ${urn} does not exist`, { urn });
  }

  private authorize(actor: Actor, op: Operation, resourceUrn?: string) {
    return requirePrivilege(this.s.authz, actor, REQUIRES[op], resourceUrn);
  }

  /**
   * Whether the actor may create, move or delete what the node holds (the top level when null), as DataHub decides:
   * MANAGE_GLOSSARIES, or MANAGE_GLOSSARY_CHILDREN on the node, or MANAGE_ALL_GLOSSARY_CHILDREN on it or a node above.
   */
  async mayManageChildren(actor: Actor, node: string | null): Promise<boolean> {
    const may = (op: Operation, urn?: string) => this.s.authz.allowed(actor, REQUIRES[op], urn);
    if (await may('graphql.manageGlossaries')) return true;
    if (!node) return false;
    if (await may('graphql.manageGlossaryChildren', node)) return true;
    for (const n of await this.glossaryAncestry(node)) if (await may('graphql.manageAllGlossaryChildren', n)) return true;
    return false;
  }

  private async authorizeChildren(actor: Actor, node: string | null) {
    if (!(await this.mayManageChildren(actor, node))) throw forbidden();
  }

  /** Data products are managed on their domain (on the product itself when it is in none). */
  private async authorizeProduct(actor: Actor, product: string) {
    await this.authorize(actor, 'graphql.manageDataProducts', (await this.productDomain(product)) ?? product);
  }

  /** Every urn of one type under a parent (or at the top level), soft-deleted ones left out. */
  private async childrenOf(entityType: string, field: 'parentDomain' | 'parentNode', parent: string | null): Promise<string[]> {
    return this.s.search.matchingUrns({ query: '', entityTypes: [entityType], filters: parentFilter(field, parent) });
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Domains

  /** Whether another domain with this exact name has the same parent (DataHub's uniqueness rule). */
  private async domainNameTaken(name: string, parent: string | null, except?: string): Promise<boolean> {
    const siblings = (await this.childrenOf('domain', 'parentDomain', parent)).filter((u) => u !== except);
    const props = await this.s.entities.latestValues(siblings, [domainProperties]);
    return [...props.values()].some((v) => v.get('domainProperties')?.name === name);
  }

  async createDomain(input: { id?: string | null; name: string; description?: string | null; parentDomain?: string | null },
    actor: Actor): Promise<string> {
    await this.authorize(actor, 'graphql.createDomain');
    if (!input.name?.trim()) throw badRequest('A domain needs a name');
    const urn = parseUrn(`urn:li:domain:${newId(input.id, 'Domain')}`).raw;
    const parent = input.parentDomain ? typed(input.parentDomain, 'domain', 'parentDomain') : null;
    if (await this.s.entities.exists(urn)) throw conflict('This Domain already exists!', { urn });
    if (parent) await this.requireExisting(parent, 'Parent domain');
    if (await this.domainNameTaken(input.name, parent)) {
      throw conflict(`"${input.name}" already exists in this domain. Please pick a unique name.`, { name: input.name });
    }
    const props: AspectValue<typeof domainProperties> = { name: input.name, created: stamp(actor),
      ...(input.description != null ? { description: input.description } : {}), ...(parent ? { parentDomain: parent } : {}) };
    await this.s.entities.createOnce(urn, [domainProperties, ownership], { domainProperties: props,
      ownership: { owners: [ownerEntry(actor.urn, 'TECHNICAL_OWNER')], lastModified: stamp(actor) } }, actor, 'Domain');
    return urn;
  }

  /** Renames a domain; another domain of the same parent may not bear the name (the rule creation and moves keep). */
  async renameDomain(urn: string, name: string, actor: Actor): Promise<void> {
    await this.authorize(actor, 'graphql.manageDomains');
    const props = (await this.s.entities.latestValues([urn], [domainProperties])).get(urn)?.get('domainProperties');
    if (!props) throw notFound(`Domain ${urn} has no properties to rename`, { urn });
    if (await this.domainNameTaken(name, props.parentDomain ?? null, urn)) {
      throw conflict(`"${name}" already exists in this domain. Please pick a unique name.`);
    }
    await this.s.entities.editExisting(urn, [domainProperties], (current) => {
      if (!current.get('domainProperties')) throw notFound(`Domain ${urn} has no properties to rename`, { urn });
      return { domainProperties: { ...current.get('domainProperties')!, name } };
    }, actor);
  }

  /** The domain, its parent, its parent's parent…, at most 100 (never round a cycle). */
  private async domainAncestry(urn: string): Promise<string[]> {
    const out: string[] = [];
    let at: string | undefined = urn;
    while (at && !out.includes(at) && out.length < 100) {
      out.push(at);
      at = (await this.s.entities.latestValues([at], [domainProperties])).get(at)?.get('domainProperties')?.parentDomain;
    }
    return out;
  }

  async moveDomain(input: { resourceUrn: string; parentDomain?: string | null }, actor: Actor): Promise<void> {
    await this.authorize(actor, 'graphql.manageDomains');
    const urn = typed(input.resourceUrn, 'domain', 'resourceUrn');
    const parent = input.parentDomain ? typed(input.parentDomain, 'domain', 'parentDomain') : null;
    await this.requireExisting(urn, 'Domain');
    if (parent) {
      await this.requireExisting(parent, 'Parent domain');
      if ((await this.domainAncestry(parent)).includes(urn)) throw badRequest(`Cannot move domain ${urn} into itself or one of its children`);
    }
    const props = (await this.s.entities.latestValues([urn], [domainProperties])).get(urn)?.get('domainProperties');
    if (!props) throw notFound(`Domain properties of ${urn} do not exist`, { urn });
    if (await this.domainNameTaken(props.name, parent, urn)) {
      throw conflict(`"${props.name}" already exists in the destination domain. Please pick a unique name.`, { name: props.name });
    }
    await this.s.entities.editExisting(urn, [domainProperties], (current) => {
      const prev = current.get('domainProperties');
      if (!prev) throw notFound(`Domain properties of ${urn} do not exist`, { urn });
      const { parentDomain: _old, ...rest } = prev;
      return { domainProperties: parent ? { ...rest, parentDomain: parent } : rest };
    }, actor);
  }

  /**
   * Deletes a domain with no child domains, and takes it off the entities that were in it (DataHub clears the
   * references to a deleted entity).
   */
  async deleteDomain(urnText: string, actor: Actor): Promise<void> {
    await this.authorize(actor, 'graphql.deleteDomain', urnText);
    const urn = typed(urnText, 'domain', 'urn');
    await this.requireExisting(urn, 'Domain');
    if ((await this.childrenOf('domain', 'parentDomain', urn)).length > 0) {
      throw badRequest(`Cannot delete domain ${urn} which has child domains`, { urn });
    }
    const members = (await this.s.store.relationships({ urn, direction: 'INCOMING', types: ['AssociatedWith'], start: 0, count: 100_000 }))
      .edges.map((e) => e.source);
    const holders = [...new Set(members)];
    if (holders.length) {
      await this.s.entities.edit(new Map(holders.map((u) => [u, [domains]])), (current) => new Map(holders.flatMap((u) => {
        const prev = current.get(u)!.get('domains');
        return prev ? [[u, { domains: { ...prev, domains: prev.domains.filter((d) => d !== urn) } }]] : [];
      })), actor);
    }
    await this.s.entities.deleteEntity(urn);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // The glossary

  /** The glossary node a term or node is in, or null. */
  async glossaryParent(urn: string): Promise<string | null> {
    const u = tryParseUrn(urn);
    if (typeof u === 'string') return null;
    const def = u.entityType === 'glossaryTerm' ? glossaryTermInfo : u.entityType === 'glossaryNode' ? glossaryNodeInfo : undefined;
    if (!def) return null;
    const v = (await this.s.entities.latestValues([u.raw], [def])).get(u.raw)?.get(def.name as never) as { parentNode?: string } | undefined;
    return v?.parentNode ?? null;
  }

  /** A node and the nodes above it, nearest first (at most 100, never round a cycle). */
  async glossaryAncestry(node: string | null): Promise<string[]> {
    const out: string[] = [];
    let at = node;
    while (at && !out.includes(at) && out.length < 100) {
      out.push(at);
      at = await this.glossaryParent(at);
    }
    return out;
  }

  async createGlossaryEntity(kind: 'term' | 'node',
    input: { id?: string | null; name: string; description?: string | null; parentNode?: string | null }, actor: Actor): Promise<string> {
    await this.authorizeChildren(actor, input.parentNode ? parseUrn(input.parentNode).raw : null);
    if (!input.name?.trim()) throw badRequest(`A glossary ${kind} needs a name`);
    const parent = input.parentNode ? typed(input.parentNode, 'glossaryNode', 'parentNode') : null;
    const entityType = kind === 'term' ? 'glossaryTerm' : 'glossaryNode';
    const urn = parseUrn(`urn:li:${entityType}:${newId(input.id, kind === 'term' ? 'Glossary term' : 'Glossary node')}`).raw;
    if (parent) await this.requireExisting(parent, 'Parent node');
    if (kind === 'term') {
      // DataHub's rule, for terms only: no two terms with one name in one node (or at the top level).
      const siblings = await this.childrenOf('glossaryTerm', 'parentNode', parent);
      const infos = await this.s.entities.latestValues(siblings, [glossaryTermInfo]);
      if ([...infos.values()].some((v) => v.get('glossaryTermInfo')?.name === input.name)) {
        throw conflict('Glossary Term with this name already exists at this level of the Business Glossary', { name: input.name });
      }
    }
    const owners = { owners: [ownerEntry(actor.urn, 'TECHNICAL_OWNER')], lastModified: stamp(actor) };
    const common = { name: input.name, definition: input.description ?? '', ...(parent ? { parentNode: parent } : {}) };
    if (kind === 'term') {
      await this.s.entities.createOnce(urn, [glossaryTermInfo, ownership], { glossaryTermInfo: { ...common, termSource: 'INTERNAL' }, ownership: owners },
        actor, 'Glossary Term');
    } else {
      await this.s.entities.createOnce(urn, [glossaryNodeInfo, ownership], { glossaryNodeInfo: common, ownership: owners }, actor, 'Glossary Node');
    }
    return urn;
  }

  /** Moves a term or node into a node, or to the top level; a node never into itself or a node below it. */
  async updateParentNode(input: { resourceUrn: string; parentNode?: string | null }, actor: Actor): Promise<void> {
    // on both the node it leaves and the node it enters, as DataHub checks
    await this.authorizeChildren(actor, await this.glossaryParent(input.resourceUrn));
    await this.authorizeChildren(actor, input.parentNode ? parseUrn(input.parentNode).raw : null);
    const u = parseUrn(input.resourceUrn);
    await this.requireExisting(u.raw, 'Entity');
    const parent = input.parentNode ? typed(input.parentNode, 'glossaryNode', 'parentNode') : null;
    if (parent) await this.requireExisting(parent, 'Glossary node');
    if (u.entityType === 'glossaryTerm') {
      await this.s.entities.editExisting(u.raw, [glossaryTermInfo], (current) => {
        const prev = current.get('glossaryTermInfo');
        if (!prev) throw notFound('Info for this Glossary Term does not yet exist!', { urn: u.raw });
        const { parentNode: _old, ...rest } = prev;
        return { glossaryTermInfo: parent ? { ...rest, parentNode: parent } : rest };
      }, actor);
    } else if (u.entityType === 'glossaryNode') {
      if (parent && (await this.glossaryAncestry(parent)).includes(u.raw)) {
        throw badRequest(`Cannot move glossary node ${u.raw} into itself or a node below it`);
      }
      await this.s.entities.editExisting(u.raw, [glossaryNodeInfo], (current) => {
        const prev = current.get('glossaryNodeInfo');
        if (!prev) throw notFound('Info for this Glossary Node does not yet exist!', { urn: u.raw });
        const { parentNode: _old, ...rest } = prev;
        return { glossaryNodeInfo: parent ? { ...rest, parentNode: parent } : rest };
      }, actor);
    } else {
      throw badRequest(`Failed to update parentNode. Unsupported resource type ${u.entityType} provided.`);
    }
  }

  /**
   * Deletes a term or node. A term is also taken off the entities it labels and out of other terms' relations
   * (DataHub clears the references to a deleted entity).
   */
  async deleteGlossaryEntity(urnText: string, actor: Actor): Promise<void> {
    await this.authorizeChildren(actor, await this.glossaryParent(urnText));
    const u = parseUrn(urnText);
    if (u.entityType !== 'glossaryTerm' && u.entityType !== 'glossaryNode') throw badRequest(`'${urnText}' is not a glossary term or node urn`);
    await this.requireExisting(u.raw, 'Entity');
    if (u.entityType === 'glossaryTerm') {
      const rel = await this.s.store.relationships({ urn: u.raw, direction: 'INCOMING', types: ['TermedWith', 'IsA', 'HasA', 'HasValue', 'IsRelatedTo'],
        start: 0, count: 100_000 });
      const labelled = [...new Set(rel.edges.filter((e) => e.type === 'TermedWith').map((e) => e.source))];
      const related = [...new Set(rel.edges.filter((e) => e.type !== 'TermedWith').map((e) => e.source))];
      const targets = new Map<string, (typeof glossaryTerms | typeof glossaryRelatedTerms)[]>();
      for (const x of labelled) targets.set(x, [glossaryTerms]);
      for (const x of related) targets.set(x, [...(targets.get(x) ?? []), glossaryRelatedTerms]);
      if (targets.size) {
        await this.s.entities.edit(targets, (current) => new Map([...targets.keys()].map((x) => {
          const values = current.get(x)!;
          const writes: Record<string, unknown> = {};
          const terms = values.get('glossaryTerms');
          if (terms?.terms.some((t) => t.urn === u.raw)) writes.glossaryTerms = { ...terms, terms: terms.terms.filter((t) => t.urn !== u.raw) };
          const rt = values.get('glossaryRelatedTerms');
          if (rt) {
            const drop = (l?: string[]) => l?.filter((t) => t !== u.raw);
            writes.glossaryRelatedTerms = Object.fromEntries(Object.entries(rt).map(([k, v]) => [k, Array.isArray(v) ? drop(v) : v]));
          }
          return [x, writes as never];
        })), actor);
      }
    }
    if (u.entityType === 'glossaryNode') {
      // What the node held moves to the top level (DataHub drops the reference to the deleted parent).
      const rel = await this.s.store.relationships({ urn: u.raw, direction: 'INCOMING', types: ['IsPartOf'], start: 0, count: 100_000 });
      const children = [...new Set(rel.edges.map((e) => e.source))].filter((c) => ['glossaryTerm', 'glossaryNode'].includes(parseUrn(c).entityType));
      if (children.length) {
        await this.s.entities.edit(new Map(children.map((c) => [c, [glossaryTermInfo, glossaryNodeInfo]])), (current) => new Map(children.map((c) => {
          const values = current.get(c)!;
          const writes: Record<string, unknown> = {};
          for (const name of ['glossaryTermInfo', 'glossaryNodeInfo'] as const) {
            const v = values.get(name) as { parentNode?: string } | undefined;
            if (v?.parentNode === u.raw) {
              const { parentNode: _p, ...rest } = v;
              writes[name] = rest;
            }
          }
          return [c, writes as never];
        })), actor);
      }
    }
    await this.s.entities.deleteEntity(u.raw);
  }

  async changeRelatedTerms(op: 'add' | 'remove',
    input: { urn: string; termUrns: string[]; relationshipType: keyof typeof RELATION_FIELD }, actor: Actor): Promise<void> {
    await this.authorize(actor, 'graphql.manageGlossaries');
    const urn = typed(input.urn, 'glossaryTerm', 'urn');
    const field = RELATION_FIELD[input.relationshipType];
    if (!field) throw badRequest(`Unknown relationshipType ${input.relationshipType}`);
    await this.requireExisting(urn, 'Glossary term');
    const terms = [...new Set(input.termUrns.map((t) => typed(t, 'glossaryTerm', 'termUrns')))];
    if (op === 'add') {
      if (terms.includes(urn)) throw badRequest(`Failed to update ${urn}. Tried to create related term with itself.`);
      const existing = await this.s.store.existing(terms);
      const missing = terms.filter((t) => !existing.has(t));
      if (missing.length) throw notFound(`Failed to update ${urn}. ${missing.join(', ')} ${missing.length > 1 ? 'do' : 'does'} not exist.`, { urns: missing });
    }
    await this.s.entities.editExisting(urn, [glossaryRelatedTerms], (current) => {
      const prev = current.get('glossaryRelatedTerms');
      if (op === 'remove' && !prev?.[field]) throw notFound(`Related Terms for this Urn do not exist: ${urn}`, { urn });
      const list = prev?.[field] ?? [];
      const next = op === 'add' ? [...list, ...terms.filter((t) => !list.includes(t))] : list.filter((t) => !terms.includes(t));
      if (next.length === list.length && next.every((t, i) => t === list[i])) return null;
      return { glossaryRelatedTerms: { ...prev, [field]: next } };
    }, actor);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Data products

  /** The domain a data product is in (the first of its domains), or null. */
  async productDomain(product: string): Promise<string | null> {
    return (await this.s.entities.latestValues([product], [domains])).get(product)?.get('domains')?.domains[0] ?? null;
  }

  async createDataProduct(input: { properties: { name: string; description?: string | null }; domainUrn: string },
    actor: Actor): Promise<string> {
    await this.authorize(actor, 'graphql.manageDataProducts', input.domainUrn);
    if (!input.properties.name?.trim()) throw badRequest('A data product needs a name');
    const domain = typed(input.domainUrn, 'domain', 'domainUrn');
    await this.requireExisting(domain, 'Domain');
    const urn = `urn:li:dataProduct:${randomUUID()}`;
    const props: AspectValue<typeof dataProductProperties> = { name: input.properties.name,
      ...(input.properties.description != null ? { description: input.properties.description } : {}) };
    await this.s.entities.createOnce(urn, [dataProductProperties, domains], { dataProductProperties: props, domains: { domains: [domain] } },
      actor, 'Data Product');
    return urn;
  }

  async updateDataProduct(urnText: string, input: { name?: string | null; description?: string | null },
    actor: Actor): Promise<void> {
    await this.authorizeProduct(actor, urnText);
    const urn = typed(urnText, 'dataProduct', 'urn');
    await this.requireExisting(urn, 'Data product');
    await this.s.entities.editExisting(urn, [dataProductProperties], (current) => {
      const prev = current.get('dataProductProperties');
      if (!prev) throw notFound(`Failed to update DataProduct. DataProduct with urn ${urn} does not exist.`, { urn });
      return { dataProductProperties: { ...prev, ...(input.name != null ? { name: input.name } : {}),
        ...(input.description != null ? { description: input.description } : {}) } };
    }, actor);
  }

  async deleteDataProduct(urnText: string, actor: Actor): Promise<void> {
    await this.authorizeProduct(actor, urnText);
    const urn = typed(urnText, 'dataProduct', 'urn');
    await this.requireExisting(urn, 'Data product');
    await this.s.entities.deleteEntity(urn);
  }

  /**
   * Puts the resources in one data product (out of any other: an asset is in one product at most, as DataHub keeps
   * it), or out of every product when none is given; every product touched is written in one transaction. Every
   * resource must exist and the caller may set its data product (EDIT_ENTITY_DATA_PRODUCTS); the product must exist.
   */
  async batchSetDataProduct(productUrn: string | null, resources: string[], actor: Actor): Promise<void> {
    for (const r of resources) {
      await this.s.entities.requireExists(r);
      await this.authorize(actor, 'graphql.dataProducts', r);
    }
    const p = productUrn ? parseUrn(productUrn) : null;
    if (p && p.entityType !== 'dataProduct') throw badRequest(`dataProductUrn '${productUrn}' is not a dataProduct urn`);
    if (p) await this.s.entities.requireExists(p.raw);
    const product = p?.raw ?? null;
    const now = Date.now();
    const holders = new Set<string>();
    for (const r of resources) {
      const rel = await this.s.store.relationships({ urn: r, direction: 'INCOMING', types: ['DataProductContains'], start: 0, count: 1000 });
      for (const e of rel.edges) if (parseUrn(e.source).entityType === 'dataProduct') holders.add(e.source);
    }
    if (product) holders.add(product);
    if (holders.size === 0) return;
    const set = new Set(resources);
    resources = [...set];
    await this.s.entities.edit(new Map([...holders].map((p) => [p, [dataProductProperties]])), (current) => new Map([...holders].map((p) => {
      const prev = current.get(p)!.get('dataProductProperties');
      const assets = prev?.assets ?? [];
      let next = p === product ? assets : assets.filter((a) => !set.has(a.destinationUrn));
      if (p === product) {
        const have = new Set(assets.map((a) => a.destinationUrn));
        next = [...assets, ...resources.filter((r) => !have.has(r)).map((r) => ({ destinationUrn: r, created: stamp(actor, now), lastModified: stamp(actor, now) }))];
      }
      return [p, { dataProductProperties: { ...prev, assets: next } }];
    })), actor);
  }
}
