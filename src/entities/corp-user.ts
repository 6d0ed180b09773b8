import { ROOT_USER_URN } from '../model/actor.js';
import { aspect, defineEntity, gql, keyAspect } from './descriptor.js';
import { COMMON_FIELDS, customProperties, globalTags } from './graphql-fields.js';
import * as shared from './shared-aspects.js';
import { arr, bool, int, rec, str, urn, type Infer } from './schema.js';

export const corpUserKey = keyAspect('corpUserKey', 'com.linkedin.metadata.key.CorpUserKey', [['username', 'string']]);

export const corpUserInfo = aspect('corpUserInfo', 'com.linkedin.identity.CorpUserInfo', rec({
  ...shared.customPropertiesField, active: bool, 'displayName?': str, 'email?': str, 'title?': str, 'managerUrn?': urn,
  'departmentId?': int, 'departmentName?': str, 'firstName?': str, 'lastName?': str, 'fullName?': str, 'countryCode?': str,
}), { edges: (v, add) => add('ReportsTo', v.managerUrn), searchText: shared.propertiesText });

export const corpUserEditableInfo = aspect('corpUserEditableInfo', 'com.linkedin.identity.CorpUserEditableInfo', rec({
  'aboutMe?': str, 'teams?': arr(str), 'skills?': arr(str), 'pictureLink?': str, 'displayName?': str, 'title?': str, 'slack?': str,
  'phone?': str, 'email?': str,
}), { searchText: shared.editableText });

export const corpUserStatus = aspect('corpUserStatus', 'com.linkedin.identity.CorpUserStatus',
  rec({ status: str, lastModified: shared.auditStamp }));

export const corpUserCredentials = aspect('corpUserCredentials', 'com.linkedin.identity.CorpUserCredentials',
  rec({ salt: str, hashedPassword: str, 'passwordResetToken?': str, 'passwordResetTokenExpirationTimeMillis?': int }));

export const corpUserSettings = aspect('corpUserSettings', 'com.linkedin.identity.CorpUserSettings', rec({
  appearance: rec({ 'showSimplifiedHomepage?': bool }), 'views?': rec({ 'defaultView?': urn }),
}));

export const groupMembership = aspect('groupMembership', 'com.linkedin.identity.GroupMembership', rec({ groups: arr(urn) }), {
  edges: (v, add) => { for (const g of v.groups) add('IsMemberOfGroup', g); },
});

export const nativeGroupMembership = aspect('nativeGroupMembership', 'com.linkedin.identity.NativeGroupMembership',
  rec({ nativeGroups: arr(urn) }), { edges: (v, add) => { for (const g of v.nativeGroups) add('IsMemberOfNativeGroup', g); } });

export const roleMembership = aspect('roleMembership', 'com.linkedin.identity.RoleMembership', rec({ roles: arr(urn) }), {
  edges: (v, add) => { for (const r of v.roles) add('IsMemberOfRole', r); },
});

type UserInfo = Infer<typeof corpUserInfo.schema>;
type UserEditable = Infer<typeof corpUserEditableInfo.schema>;

function userInfo(i: UserInfo | undefined) {
  if (!i) return null;
  return { active: i.active ?? true, displayName: i.displayName ?? null, title: i.title ?? null, email: i.email ?? null,
    firstName: i.firstName ?? null, lastName: i.lastName ?? null, fullName: i.fullName ?? null,
    managerUrn: i.managerUrn ?? null, departmentName: i.departmentName ?? null, countryCode: i.countryCode ?? null };
}

function userEditable(e: UserEditable | undefined) {
  if (!e) return null;
  return { displayName: e.displayName ?? null, title: e.title ?? null, aboutMe: e.aboutMe ?? null, teams: e.teams ?? null,
    skills: e.skills ?? null, pictureLink: e.pictureLink ?? null, slack: e.slack ?? null, phone: e.phone ?? null, email: e.email ?? null };
}

const SDL = gql`
type CorpUser implements Entity {
  urn: String!
  type: EntityType!
  username: String!
  properties: CorpUserProperties
  editableProperties: CorpUserEditableProperties
  status: CorpUserStatus
  tags: GlobalTags
  isNativeUser: Boolean
  info: CorpUserInfo
  editableInfo: CorpUserEditableInfo @deprecated(reason: "Use editableProperties")
  globalTags: GlobalTags
  exists: Boolean
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}

type CorpUserProperties {
  active: Boolean!
  displayName: String
  title: String
  email: String
  firstName: String
  lastName: String
  fullName: String
  managerUrn: String
  departmentName: String
  countryCode: String
  customProperties: [CustomPropertiesEntry!]
}

type CorpUserInfo {
  active: Boolean!
  displayName: String
  title: String
  email: String
  firstName: String
  lastName: String
  fullName: String
  departmentName: String
  countryCode: String
}

type CorpUserEditableProperties {
  displayName: String
  title: String
  aboutMe: String
  teams: [String!]
  skills: [String!]
  pictureLink: String
  slack: String
  phone: String
  email: String
}

"The edits a user made to their profile, under the older type name (and fields) DataHub's clients see for editableInfo."
type CorpUserEditableInfo {
  displayName: String
  title: String
  aboutMe: String
  teams: [String!]
  skills: [String!]
  pictureLink: String
}

enum CorpUserStatus { ACTIVE SUSPENDED }
`;

/** People (and service accounts). */
export const corpuser = defineEntity({
  name: 'corpuser',
  category: 'core',
  display: { label: 'User', rank: 120 },
  key: corpUserKey,
  aspects: [corpUserInfo, corpUserEditableInfo, corpUserStatus, groupMembership, shared.globalTags, shared.status, corpUserCredentials,
    nativeGroupMembership, corpUserSettings, shared.origin, roleMembership],
  // Metadata tests push their results to users too.
  almanacAspects: [shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.CorpUserSnapshot',
  graphql: {
    entityType: 'CORP_USER',
    objectType: 'CorpUser',
    rootField: 'corpUser',
    sdl: SDL,
    fields: {
      ...COMMON_FIELDS,
      username: (f) => f.key.username,
      properties: async (f) => {
        const i = await f.aspect(corpUserInfo);
        const info = userInfo(i);
        return info ? { ...info, customProperties: customProperties(i?.customProperties, f.urn) } : null;
      },
      info: async (f) => userInfo(await f.aspect(corpUserInfo)),
      editableProperties: async (f) => userEditable(await f.aspect(corpUserEditableInfo)),
      editableInfo: async (f) => userEditable(await f.aspect(corpUserEditableInfo)),
      status: async (f) => {
        const s = await f.aspect(corpUserStatus);
        return s?.status === 'SUSPENDED' ? 'SUSPENDED' : s ? 'ACTIVE' : null;
      },
      tags: async (f) => globalTags(await f.aspect(shared.globalTags), f.urn),
      isNativeUser: async (f) => f.urn === ROOT_USER_URN || !!(await f.aspect(corpUserCredentials)),
    },
  },
  search: {},
});

