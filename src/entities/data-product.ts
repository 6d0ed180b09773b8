import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { arr, rec, str } from './schema.js';

export const dataProductKey = keyAspect('dataProductKey', 'com.linkedin.dataproduct.DataProductKey', [['id', 'string']]);

export const dataProductProperties = aspect('dataProductProperties', 'com.linkedin.dataproduct.DataProductProperties', rec({
  ...shared.customPropertiesField, ...shared.externalReferenceField, 'name?': str, 'description?': str, 'assets?': arr(shared.edge),
}), {
  edges: (v, add) => { for (const a of v.assets ?? []) add('DataProductContains', a.destinationUrn); },
  searchText: shared.propertiesText,
});

/** A set of assets published together for a purpose, within a domain. */
export const dataProduct = defineEntity({
  name: 'dataProduct',
  category: 'core',
  key: dataProductKey,
  aspects: [shared.ownership, shared.glossaryTerms, shared.globalTags, shared.domains, dataProductProperties, shared.institutionalMemory,
    shared.status],
  graphql: { entityType: 'DATA_PRODUCT' },
  search: {},
  edits: { description: { aspect: dataProductProperties, field: 'description' } },
});
