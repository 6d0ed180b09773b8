import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { arr, rec, str, urn } from './schema.js';

export const roleKey = keyAspect('roleKey', 'com.linkedin.metadata.key.RoleKey', [['id', 'string']]);

/** A role of an external access-management system (not one of DataHub's own roles). */
export const roleProperties = aspect('roleProperties', 'com.linkedin.role.RoleProperties', rec({
  name: str, 'description?': str, type: str, 'requestUrl?': str, 'created?': shared.auditStamp,
}), { searchText: shared.propertiesText });

export const actors = aspect('actors', 'com.linkedin.role.Actors', rec({ 'users?': arr(rec({ user: urn })) }), {
  edges: (v, add) => { for (const u of v.users ?? []) add('Has', u.user); },
});

/** Access roles of external systems that give access to assets (see the `access` aspect). */
export const role = defineEntity({
  name: 'role',
  category: 'core',
  key: roleKey,
  aspects: [roleProperties, actors],
  graphql: { entityType: 'ROLE' },
});
