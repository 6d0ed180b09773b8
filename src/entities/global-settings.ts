import { aspect, defineEntity, keyAspect } from './descriptor.js';
import { rec, urn } from './schema.js';

export const globalSettingsKey = keyAspect('globalSettingsKey', 'com.linkedin.metadata.key.GlobalSettingsKey', [['id', 'string']]);

export const globalSettingsInfo = aspect('globalSettingsInfo', 'com.linkedin.settings.global.GlobalSettingsInfo',
  rec({ 'views?': rec({ 'defaultView?': urn }) }));

/** Settings of the whole platform (the default view). */
export const globalSettings = defineEntity({
  name: 'globalSettings',
  category: 'internal',
  key: globalSettingsKey,
  aspects: [globalSettingsInfo],
  graphql: { entityType: 'OTHER' },
});
