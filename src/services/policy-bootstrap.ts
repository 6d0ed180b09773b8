import { ownValue } from '../model/safe-keys.js';
import type { Store } from '../storage/types.js';
import type { Actor } from '../model/actor.js';
import type { EntityService } from './entities.js';
import { DEFAULT_POLICIES, DEFAULT_ROLES } from './policy-defaults.js';
import { ownStrings } from './policy-rules.js';

/**
 * Policies written by earlier Almanac versions under urns DataHub uses differently. `urn:li:dataHubPolicy:7` held an
 * inactive "All Users - Edit All Metadata"; DataHub's policy 7 is the base platform policy, which Almanac kept under
 * its own urn. On start, such a catalog is moved to DataHub's urns, keeping the administrator's on/off choice.
 */
const LEGACY_EDIT_ALL_NAME = 'All Users - Edit All Metadata';
const LEGACY_BASE_PLATFORM_URN = 'urn:li:dataHubPolicy:all-users-base-platform';
/** Where an old policy 7 that an administrator had switched on is kept. */
const LEGACY_EDIT_ALL_URN = 'urn:li:dataHubPolicy:all-users-edit-all-metadata';

/**
 * Creates the default policies that are missing (never overwrites an administrator's change), after moving a
 * catalog made by an earlier Almanac to DataHub's urns (see LEGACY_EDIT_ALL_NAME).
 */
export async function bootstrapPolicies(entities: EntityService, store: Store, actor: Actor): Promise<void> {
  await moveLegacyPolicies(entities, store, actor);
  await addNewBuiltInPrivileges(entities, store, actor);
  const urns = [...Object.keys(DEFAULT_POLICIES), ...Object.keys(DEFAULT_ROLES)];
  const existing = await store.existing(urns);
  const missing = urns.filter((u) => !existing.has(u));
  if (missing.length === 0) return;
  await entities.ingest(missing.map((urn) => (urn in DEFAULT_ROLES
    ? { urn, entityType: 'dataHubRole', aspect: 'dataHubRoleInfo', changeType: 'UPSERT' as const, value: DEFAULT_ROLES[urn], systemMetadata: null }
    : { urn, entityType: 'dataHubPolicy', aspect: 'dataHubPolicyInfo', changeType: 'UPSERT' as const,
      value: { ...DEFAULT_POLICIES[urn], lastUpdatedTimestamp: Date.now() }, systemMetadata: null })), actor);
}

/**
 * Built-in policies (not editable) stored by an earlier Almanac gain the privileges added to their defaults since
 * (VIEW_CHANGE_LOG, MANAGE_WEBHOOKS, VIEW_METRICS for the root user and admins); nothing else of theirs changes.
 */
async function addNewBuiltInPrivileges(entities: EntityService, store: Store, actor: Actor): Promise<void> {
  const builtIn = Object.entries(DEFAULT_POLICIES).filter(([, p]) => !p.editable);
  const latest = await store.getLatest(builtIn.map(([urn]) => urn), ['dataHubPolicyInfo']);
  const items = builtIn.flatMap(([urn, def]) => {
    const stored = latest.get(urn)?.get('dataHubPolicyInfo')?.value;
    if (stored === undefined || ownValue(stored, 'editable') !== false) return [];
    const held = ownStrings(stored, 'privileges');
    const missing = def.privileges.filter((p) => !held.includes(p));
    if (missing.length === 0) return [];
    return [{ urn, entityType: 'dataHubPolicy', aspect: 'dataHubPolicyInfo', changeType: 'UPSERT' as const,
      value: { ...(stored as object), privileges: [...held, ...missing], lastUpdatedTimestamp: Date.now() }, systemMetadata: null }];
  });
  if (items.length > 0) await entities.ingest(items, actor);
}

async function moveLegacyPolicies(entities: EntityService, store: Store, actor: Actor): Promise<void> {
  const seven = 'urn:li:dataHubPolicy:7';
  const latest = await store.getLatest([seven, LEGACY_BASE_PLATFORM_URN], ['dataHubPolicyInfo']);
  const oldSeven = latest.get(seven)?.get('dataHubPolicyInfo')?.value;
  const oldBase = latest.get(LEGACY_BASE_PLATFORM_URN)?.get('dataHubPolicyInfo')?.value;
  if (ownValue(oldSeven, 'displayName') !== LEGACY_EDIT_ALL_NAME) return;
  const state = ownValue(oldBase, 'state') === 'INACTIVE' ? 'INACTIVE' : 'ACTIVE';
  // An administrator who switched the old "edit everything" policy on keeps it, under a urn of its own.
  const keepEditAll = ownValue(oldSeven, 'state') === 'ACTIVE'
    ? [{ urn: LEGACY_EDIT_ALL_URN, entityType: 'dataHubPolicy', aspect: 'dataHubPolicyInfo', changeType: 'UPSERT' as const,
      value: { ...(oldSeven as object), lastUpdatedTimestamp: Date.now() }, systemMetadata: null }]
    : [];
  await entities.ingest([...keepEditAll, { urn: seven, entityType: 'dataHubPolicy', aspect: 'dataHubPolicyInfo', changeType: 'UPSERT',
    value: { ...DEFAULT_POLICIES[seven], state, lastUpdatedTimestamp: Date.now() }, systemMetadata: null }], actor);
  if (oldBase !== undefined) await entities.deleteEntity(LEGACY_BASE_PLATFORM_URN);
}
