import { ENTITY_SUMMARY } from './fragments';
import { typed } from '../gql';
import type { RawEntity } from '../entitySummary';

/**
 * The home page's modules: the server's recommendations for the home page (platforms, domains, recently viewed and
 * edited, most popular, top tags and terms) and for the search bar (the user's recent searches), and the
 * announcements (posts). The catalog's totals are uiEntityCounts (./search.ts).
 */
export const HOME = typed<HomeData, { user: string }>(/* GraphQL */ `
  query uiHome($user: String!) {
    home: listRecommendations(input: { userUrn: $user, requestContext: { scenario: HOME }, limit: 20 }) {
      modules {
        title moduleId renderType
        content { value entity { ...uiEntitySummary } params { contentParams { count } } }
      }
    }
    searchBar: listRecommendations(input: { userUrn: $user, requestContext: { scenario: SEARCH_BAR }, limit: 5 }) {
      modules { moduleId content { value } }
    }
    listPosts(input: { start: 0, count: 5 }) {
      total
      posts { urn content { contentType title description link } lastModified { time } }
    }
  }
  ${ENTITY_SUMMARY}
`);

export interface RecommendationContent { value: string; entity: RawEntity | null; params: { contentParams: { count: number | null } | null } | null }
export interface RecommendationModule { title: string; moduleId: string; renderType: string; content: RecommendationContent[] }
export interface HomeData {
  home: { modules: RecommendationModule[] } | null;
  searchBar: { modules: { moduleId: string; content: { value: string }[] }[] } | null;
  listPosts: { total: number; posts: { urn: string; content: { contentType: string; title: string; description: string | null; link: string | null };
    lastModified: { time: number } }[] } | null;
}
