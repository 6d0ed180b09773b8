import { descriptorOfGraphQLType, descriptorOfUrn } from '../entities/index.js';

/** An entity's GraphQL EntityType value and object type, from its descriptor (OTHER and GenericEntity otherwise). */
export function graphqlEntityType(urn: string): string {
  return descriptorOfUrn(urn)?.graphql.entityType ?? 'OTHER';
}

export function graphqlTypeName(urn: string): string {
  return descriptorOfUrn(urn)?.graphql.objectType ?? 'GenericEntity';
}

/** GraphQL EntityType enum value → registry entity type (`DATASET` → `dataset`). */
export function entityTypeOfEnum(enumValue: string): string | undefined {
  return descriptorOfGraphQLType(enumValue)?.name;
}
