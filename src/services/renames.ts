import { corpGroupInfo } from '../entities/corp-group.js';
import { dataProductProperties } from '../entities/data-product.js';
import { glossaryNodeInfo } from '../entities/glossary-node.js';
import { glossaryTermInfo } from '../entities/glossary-term.js';
import { domains } from '../entities/shared-aspects.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import type { Actor } from '../model/actor.js';
import { REQUIRES, type Operation } from '../model/privileges.js';
import { parseUrn } from '../model/urn.js';
import { requirePrivilege, type Authorizer } from './authz.js';
import type { DomainsGlossaryService } from './domains-glossary.js';
import type { EntityService } from './entities.js';

/**
 * DataHub 0.12.1's updateName: a glossary term or node, a domain, a group or a data product renamed in the aspect that
 * holds its name, each under its own privilege, decided here: who may manage the glossary node above a term or node,
 * MANAGE_DOMAINS (and a name no other domain of the same parent bears), MANAGE_USERS_AND_GROUPS, MANAGE_DATA_PRODUCTS
 * on the product's domain or EDIT_ENTITY on the product.
 */
export class RenameService {
  constructor(private readonly entities: EntityService, private readonly domainsGlossary: DomainsGlossaryService,
    private readonly authz: Authorizer) {}

  /** Renames the entity; its urn. */
  async rename(urnText: string, name: string, actor: Actor): Promise<string> {
    const u = parseUrn(urnText);
    const urn = u.raw;
    const e = this.entities;
    await e.requireExists(urn);
    const can = (op: Operation, resource: string) => this.authz.allowed(actor, REQUIRES[op], resource);
    switch (u.entityType) {
      case 'glossaryTerm':
      case 'glossaryNode': {
        if (!(await this.domainsGlossary.mayManageChildren(actor, await this.domainsGlossary.glossaryParent(urn)))) throw forbidden();
        const def = u.entityType === 'glossaryTerm' ? glossaryTermInfo : glossaryNodeInfo;
        await e.editExisting(urn, [def], (current) => {
          const info = (current as unknown as { get(n: string): Record<string, unknown> | undefined }).get(def.name);
          if (!info) throw notFound(`${u.entityType === 'glossaryTerm' ? 'Glossary Term' : 'Glossary Node'} ${urn} has no info to rename`, { urn });
          return { [def.name]: { ...info, name } } as never;
        }, actor);
        break;
      }
      case 'domain':
        await this.domainsGlossary.renameDomain(urn, name, actor);
        break;
      case 'corpGroup':
        await requirePrivilege(this.authz, actor, REQUIRES['graphql.manageUsersAndGroups']);
        await e.editExisting(urn, [corpGroupInfo], (current) => {
          if (!current.get('corpGroupInfo')) throw notFound(`Group ${urn} has no info to rename`, { urn });
          return { corpGroupInfo: { ...current.get('corpGroupInfo')!, displayName: name } };
        }, actor);
        break;
      case 'dataProduct': {
        const productDomains = (await e.latestValues([urn], [domains])).get(urn)?.get('domains')?.domains ?? [];
        const allowed = (productDomains[0] && await can('graphql.manageDataProducts', productDomains[0])) || await can('graphql.manageEntity', urn);
        if (!allowed) throw forbidden();
        await e.editExisting(urn, [dataProductProperties], (current) => {
          if (!current.get('dataProductProperties')) throw notFound(`Data product ${urn} has no properties to rename`, { urn });
          return { dataProductProperties: { ...current.get('dataProductProperties')!, name } };
        }, actor);
        break;
      }
      default:
        throw badRequest(`Failed to update name. Unsupported resource type ${u.entityType}`, { urn });
    }
    return urn;
  }
}
