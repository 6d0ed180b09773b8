/**
 * Fragments shared by the UI's documents. `uiEntitySummary` reads, for any entity, what a result row or a link needs
 * (name, description, platform, subtypes); ui/src/entitySummary.ts turns its per-type shapes into one.
 * Per-type selections use aliases where two types' fields of the same name differ in nullability.
 */
export const PLATFORM_FIELDS = /* GraphQL */ `
  fragment uiPlatform on DataPlatform { urn name properties { displayName logoUrl } }
`;

export const ENTITY_SUMMARY = /* GraphQL */ `
  fragment uiEntitySummary on Entity {
    urn
    type
    ... on Dataset { name properties { name qualifiedName description } editableProperties { description } platform { ...uiPlatform } subTypes { typeNames } }
    ... on Chart { properties { name description } editableProperties { description } platform { ...uiPlatform } subTypes { typeNames } }
    ... on Dashboard { properties { name description } editableProperties { description } platform { ...uiPlatform } subTypes { typeNames } }
    ... on DataJob { properties { name description } editableProperties { description } subTypes { typeNames } dataFlow { urn platform { ...uiPlatform } } }
    ... on DataFlow { properties { name description } editableProperties { description } platform { ...uiPlatform } }
    ... on Container { properties { name description } editableProperties { description } platform { ...uiPlatform } subTypes { typeNames } }
    ... on Domain { properties { name description } }
    ... on DataProduct { properties { name description } }
    ... on Tag { name properties { name description } }
    ... on GlossaryTerm { name hierarchicalName properties { name description } }
    ... on GlossaryNode { properties { name description } }
    ... on CorpUser { username userProps: properties { displayName fullName title email } editableProperties { displayName } }
    ... on CorpGroup { name groupProps: properties { displayName description } }
    ... on MLModel { name description platform { ...uiPlatform } }
    ... on MLModelGroup { name description platform { ...uiPlatform } }
    ... on MLFeatureTable { name description platform { ...uiPlatform } }
    ... on MLFeature { name description featureNamespace }
    ... on MLPrimaryKey { name description featureNamespace }
    ... on Notebook { info { title description } platform { ...uiPlatform } subTypes { typeNames } }
    ... on DataPlatform { name platformProps: properties { displayName logoUrl } }
  }
  ${PLATFORM_FIELDS}
`;
