import { aspect, defineEntity, keyAspect } from './descriptor.js';
import { enumOf, int, rec, str } from './schema.js';

export const postKey = keyAspect('postKey', 'com.linkedin.metadata.key.PostKey', [['id', 'string']]);

export const postInfo = aspect('postInfo', 'com.linkedin.post.PostInfo', rec({
  type: enumOf(['HOME_PAGE_ANNOUNCEMENT']),
  content: rec({ title: str, type: enumOf(['TEXT', 'LINK']), 'description?': str, 'link?': str,
    'media?': rec({ type: enumOf(['IMAGE']), location: str }) }),
  created: int, lastModified: int,
}));

/** Announcements on the home page. */
export const post = defineEntity({
  name: 'post',
  category: 'core',
  key: postKey,
  aspects: [postInfo],
  graphql: { entityType: 'POST' },
});
