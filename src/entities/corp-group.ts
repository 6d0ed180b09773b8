import { aspect, defineEntity, gql, keyAspect, ref } from './descriptor.js';
import { COMMON_FIELDS } from './graphql-fields.js';
import * as shared from './shared-aspects.js';
import { arr, rec, str, urn } from './schema.js';

export const corpGroupKey = keyAspect('corpGroupKey', 'com.linkedin.metadata.key.CorpGroupKey', [['name', 'string']]);

export const corpGroupInfo = aspect('corpGroupInfo', 'com.linkedin.identity.CorpGroupInfo', rec({
  'displayName?': str, 'email?': str, 'admins?': arr(urn), 'members?': arr(urn), 'groups?': arr(urn), 'description?': str,
  'slack?': str, 'created?': shared.auditStamp,
}), {
  edges: (v, add) => {
    for (const u of v.admins ?? []) add('OwnedBy', u);
    for (const u of v.members ?? []) add('IsPartOf', u);
    for (const g of v.groups ?? []) add('IsPartOf', g);
  },
  searchText: shared.propertiesText,
});

export const corpGroupEditableInfo = aspect('corpGroupEditableInfo', 'com.linkedin.identity.CorpGroupEditableInfo',
  rec({ 'description?': str, 'pictureLink?': str, 'slack?': str, 'email?': str }), { searchText: shared.editableText });

const SDL = gql`
type CorpGroup implements Entity {
  urn: String!
  type: EntityType!
  name: String!
  properties: CorpGroupProperties
  editableProperties: CorpGroupEditableProperties
  info: CorpGroupInfo
  ownership: Ownership
  "Where the group comes from (UNKNOWN when no origin was ingested)."
  origin: Origin
  exists: Boolean
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}

enum OriginType { NATIVE EXTERNAL UNKNOWN }

type Origin {
  type: OriginType!
  externalType: String
}

type CorpGroupProperties {
  displayName: String
  description: String
  email: String
  slack: String
}

type CorpGroupInfo {
  displayName: String
  description: String
  email: String
  admins: [CorpUser!]
  members: [CorpUser!]
  groups: [String!]
}

type CorpGroupEditableProperties {
  description: String
  slack: String
  email: String
}
`;

/** Groups of users. */
export const corpGroup = defineEntity({
  name: 'corpGroup',
  category: 'core',
  display: { label: 'Group', rank: 130 },
  key: corpGroupKey,
  aspects: [corpGroupInfo, corpGroupEditableInfo, shared.globalTags, shared.ownership, shared.status, shared.origin],
  // Metadata tests push their results to groups too.
  almanacAspects: [shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.CorpGroupSnapshot',
  graphql: {
    entityType: 'CORP_GROUP',
    objectType: 'CorpGroup',
    rootField: 'corpGroup',
    sdl: SDL,
    fields: {
      ...COMMON_FIELDS,
      name: (f) => f.key.name,
      origin: async (f) => {
        const o = await f.aspect(shared.origin);
        return { type: o?.type ?? 'UNKNOWN', externalType: o?.externalType ?? null };
      },
      properties: async (f) => {
        const i = await f.aspect(corpGroupInfo);
        return i ? { displayName: i.displayName ?? null, description: i.description ?? null, email: i.email ?? null,
          slack: i.slack ?? null } : null;
      },
      info: async (f) => {
        const i = await f.aspect(corpGroupInfo);
        return i ? { displayName: i.displayName ?? null, description: i.description ?? null, email: i.email ?? null,
          admins: (i.admins ?? []).map(ref), members: (i.members ?? []).map(ref), groups: i.groups ?? [] } : null;
      },
      editableProperties: async (f) => {
        const e = await f.aspect(corpGroupEditableInfo);
        return e ? { description: e.description ?? null, slack: e.slack ?? null, email: e.email ?? null } : null;
      },
    },
  },
  search: {},
  edits: { description: { aspect: corpGroupEditableInfo, field: 'description' } },
});
