/**
 * The one table of ownership types, used by validation, GraphQL reads and owner edits alike.
 *
 * An owner names its type two ways: the legacy enum `type` (kept for old readers) and, since DataHub 0.10, the urn
 * of an ownership-type entity (`typeUrn`). DataHub 0.12.1 maps an enum value to an urn by one rule, the value in
 * lower case after `urn:li:ownershipType:__system__`, so an owner stored with only `type: DATAOWNER` stands for
 * `urn:li:ownershipType:__system__dataowner`, not for the technical owner type. Reads, addOwners and removeOwner all
 * go through ownershipTypeOf, so they agree on what an owner entry is.
 */

/** The enum values of DataHub 0.12.1's OwnershipType, in the order refusals list them. */
export const OWNERSHIP_TYPES = ['TECHNICAL_OWNER', 'BUSINESS_OWNER', 'DATA_STEWARD', 'NONE', 'CUSTOM', 'DATAOWNER', 'PRODUCER',
  'DEVELOPER', 'CONSUMER', 'DELEGATE', 'STAKEHOLDER'] as const;
export type OwnershipTypeValue = (typeof OWNERSHIP_TYPES)[number];

const SYSTEM_PREFIX = 'urn:li:ownershipType:__system__';

/** The ownership-type urn DataHub maps a legacy enum value to. */
export function systemOwnershipTypeUrn(type: string): string {
  return SYSTEM_PREFIX + type.toLowerCase();
}

/** System ownership types (id `__system__…`) are soft-deleted, never removed, as DataHub does. */
export function isSystemOwnershipType(urn: string): boolean {
  return urn.startsWith(SYSTEM_PREFIX);
}

/** The ownership type an owner entry stands for: its urn when it has one, else its legacy type mapped. */
export function ownershipTypeOf(owner: { type?: string; typeUrn?: string | null }): string {
  return owner.typeUrn || systemOwnershipTypeUrn(owner.type ?? 'NONE');
}

/**
 * The ownership types DataHub creates on first start: entities with a name, so that owners of these types show
 * one. The legacy values without an entity (DATAOWNER, PRODUCER, …) keep their own urns and have no info, as in
 * DataHub. Descriptions are Almanac's.
 */
export const SYSTEM_OWNERSHIP_TYPES: readonly { type: OwnershipTypeValue; urn: string; name: string; description: string }[] = [
  { type: 'TECHNICAL_OWNER', name: 'Technical Owner', description: 'Builds, runs or maintains the asset.' },
  { type: 'BUSINESS_OWNER', name: 'Business Owner', description: 'Answers for what the asset means and how the business uses it.' },
  { type: 'DATA_STEWARD', name: 'Data Steward', description: 'Looks after the quality and governance of the asset.' },
  { type: 'NONE', name: 'None', description: 'Owns the asset without a stated kind of ownership.' },
].map((t) => ({ ...t, type: t.type as OwnershipTypeValue, urn: systemOwnershipTypeUrn(t.type) }));

/**
 * An owner entry as edits store it. DataHub 0.12.1 writes the legacy type as given, or CUSTOM when only an
 * ownership-type urn is given; the urn as given, or the legacy type's system urn. Given neither, Almanac makes a
 * technical owner (DataHub refuses the edit).
 */
export function ownerEntry(owner: string, type?: string | null, typeUrn?: string | null): { owner: string; type: OwnershipTypeValue; typeUrn: string } {
  const legacy = type ?? (typeUrn ? 'CUSTOM' : 'TECHNICAL_OWNER');
  // A type from a client is not checked here: the ownership aspect's schema refuses one not in OWNERSHIP_TYPES when written.
  return { owner, type: legacy as OwnershipTypeValue, typeUrn: typeUrn ?? systemOwnershipTypeUrn(legacy) };
}
