import { aspect, defineEntity, gql, keyAspect } from './descriptor.js';
import { enumOf, int, rec, str } from './schema.js';

export const postKey = keyAspect('postKey', 'com.linkedin.metadata.key.PostKey', [['id', 'string']]);

export const postInfo = aspect('postInfo', 'com.linkedin.post.PostInfo', rec({
  type: enumOf(['HOME_PAGE_ANNOUNCEMENT']),
  content: rec({ title: str, type: enumOf(['TEXT', 'LINK']), 'description?': str, 'link?': str,
    'media?': rec({ type: enumOf(['IMAGE']), location: str }) }),
  created: int, lastModified: int,
}));

const SDL = gql`
type Post implements Entity {
  urn: String!
  type: EntityType!
  postType: PostType!
  content: PostContent!
  lastModified: AuditStamp!
  exists: Boolean
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}

type PostContent {
  contentType: PostContentType!
  title: String!
  description: String
  link: String
  media: Media
}

enum PostType { HOME_PAGE_ANNOUNCEMENT }
enum PostContentType { TEXT LINK }

type Media {
  type: MediaType!
  location: String!
}

enum MediaType { IMAGE }
`;

/** Announcements on the home page. */
export const post = defineEntity({
  name: 'post',
  category: 'core',
  key: postKey,
  aspects: [postInfo],
  graphql: {
    entityType: 'POST',
    objectType: 'Post',
    sdl: SDL,
    fields: {
      postType: async (f) => (await f.aspect(postInfo))?.type ?? null,
      content: async (f) => {
        const c = (await f.aspect(postInfo))?.content;
        return c ? { contentType: c.type, title: c.title, description: c.description ?? null, link: c.link ?? null,
          media: c.media ? { type: c.media.type, location: c.media.location } : null } : null;
      },
      // postInfo keeps a time only; DataHub answers no actor.
      lastModified: async (f) => {
        const p = await f.aspect(postInfo);
        return p ? { time: p.lastModified, actor: null } : null;
      },
    },
  },
});
