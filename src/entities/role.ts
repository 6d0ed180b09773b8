import { aspect, defineEntity, gql, keyAspect, ref } from './descriptor.js';
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

const SDL = gql`
"A role of an external access-management system, which gives access to the assets whose access aspect names it."
type Role implements Entity {
  urn: String!
  type: EntityType!
  "The id part of the urn."
  id: String!
  properties: RoleProperties
  "The users given the role (the actors aspect)."
  actors: Actor
  exists: Boolean
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}

type RoleProperties {
  name: String!
  description: String
  "The kind of access, as the external system names it (e.g. READ, WRITE)."
  type: String
  "Where a user asks for the role."
  requestUrl: String
}

type Actor {
  users: [RoleUser!]
}

type RoleUser {
  user: CorpUser!
}
`;

/** Access roles of external systems that give access to assets (see the `access` aspect). */
export const role = defineEntity({
  name: 'role',
  category: 'core',
  key: roleKey,
  aspects: [roleProperties, actors],
  graphql: {
    entityType: 'ROLE',
    objectType: 'Role',
    rootField: 'role',
    sdl: SDL,
    fields: {
      id: (f) => f.key.id,
      properties: async (f) => {
        const p = await f.aspect(roleProperties);
        return p ? { name: p.name, description: p.description ?? null, type: p.type, requestUrl: p.requestUrl ?? null } : null;
      },
      actors: async (f) => {
        const a = await f.aspect(actors);
        return a ? { users: a.users ? a.users.map((u) => ({ user: ref(u.user) })) : null } : null;
      },
    },
  },
  // External access roles are among the types DataHub 0.12.1 searches (its search page and autocomplete show them).
  search: {},
});
