import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { arr, enumOf, rec, str, urn } from './schema.js';

export const dataContractKey = keyAspect('dataContractKey', 'com.linkedin.metadata.key.DataContractKey', [['id', 'string']]);

const assertions = arr(rec({ assertion: urn }));

export const dataContractProperties = aspect('dataContractProperties', 'com.linkedin.datacontract.DataContractProperties', rec({
  entity: urn, 'schema?': assertions, 'freshness?': assertions, 'dataQuality?': assertions, 'rawContract?': str,
}), {
  edges: (v, add) => {
    add('ContractFor', v.entity);
    for (const a of v.schema ?? []) add('IncludesSchemaAssertion', a.assertion);
    for (const a of v.freshness ?? []) add('IncludesFreshnessAssertion', a.assertion);
    for (const a of v.dataQuality ?? []) add('IncludesDataQualityAssertion', a.assertion);
  },
});

export const dataContractStatus = aspect('dataContractStatus', 'com.linkedin.datacontract.DataContractStatus',
  rec({ ...shared.customPropertiesField, state: enumOf(['ACTIVE', 'PENDING']) }));

/** The promises a dataset's owners make about it: assertions on schema, freshness and quality. */
export const dataContract = defineEntity({
  name: 'dataContract',
  category: 'core',
  key: dataContractKey,
  aspects: [dataContractProperties, dataContractStatus, shared.status],
  graphql: { entityType: 'OTHER' },
});
