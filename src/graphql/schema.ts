import { GraphQLScalarType, Kind, parse, type DocumentNode } from 'graphql';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { authResolvers } from './resolvers/auth.js';
import { analyticsResolvers } from './resolvers/analytics.js';
import { ingestionResolvers } from './resolvers/ingestion.js';
import { entityResolvers } from './resolvers/common.js';
import { entityReaders } from './resolvers/entities.js';
import { lineageResolvers } from './resolvers/lineage.js';
import { metadataTestResolvers } from './resolvers/metadata-tests.js';
import { nativeUserResolvers } from './resolvers/native-users.js';
import { entityUpdateSdl, mutationResolvers } from './resolvers/mutations.js';
import { ownershipTypeResolvers } from './resolvers/ownership-types.js';
import { recommendationResolvers } from './resolvers/recommendations.js';
import { searchResolvers } from './resolvers/search.js';
import { browseResolvers } from './resolvers/browse.js';
import { domainGlossaryResolvers } from './resolvers/domains-glossary.js';
import { datasetPageResolvers } from './resolvers/dataset-pages.js';
import { timeseriesResolvers } from './resolvers/timeseries.js';
import { userResolvers } from './resolvers/users.js';
import { settingsResolvers } from './resolvers/settings.js';
import { historyResolvers } from './resolvers/history.js';
import { LongScalar } from './scalars.js';
import { descriptorResolvers, descriptorSdl } from './entity-resolvers.js';

/**
 * One SDL file and one resolver module per area, plus the entity types' SDL and field resolvers from their
 * descriptors (src/entities). A new area adds its file here and its resolvers below; a new entity type adds only
 * its descriptor.
 */
const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'schema');
const FILES = ['common', 'datasets', 'tags', 'entities', 'auth', 'search', 'timeseries', 'metadata-tests', 'relationships', 'users', 'ownership-types', 'lineage', 'recommendations', 'browse', 'settings', 'ingestion', 'analytics', 'native-users', 'dataset-pages', 'domains-glossary', 'history'];
export const schemaFiles = () => FILES.map((f) => path.join(dir, `${f}.graphql`));

/** The whole schema text: the areas' files, then the descriptors' SDL. */
export function schemaSdl(): string {
  return [...schemaFiles().map((f) => readFileSync(f, 'utf8')), descriptorSdl(), entityUpdateSdl()].join('\n');
}

const AREAS: Record<string, unknown>[] = [{ Long: LongScalar }, entityResolvers, entityReaders, mutationResolvers, authResolvers, searchResolvers, timeseriesResolvers, metadataTestResolvers, userResolvers, ownershipTypeResolvers, lineageResolvers, recommendationResolvers, browseResolvers, settingsResolvers, ingestionResolvers, analyticsResolvers, nativeUserResolvers, datasetPageResolvers, domainGlossaryResolvers, historyResolvers];

/** Object type → the fields the schema declares for it (extensions included). */
function declaredFields(sdl: string | DocumentNode): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const def of (typeof sdl === 'string' ? parse(sdl) : sdl).definitions) {
    if (def.kind !== Kind.OBJECT_TYPE_DEFINITION && def.kind !== Kind.OBJECT_TYPE_EXTENSION) continue;
    const set = out.get(def.name.value) ?? new Set<string>();
    for (const f of def.fields ?? []) set.add(f.name.value);
    out.set(def.name.value, set);
  }
  return out;
}

/** Descriptor resolvers first: an area that extends an entity type resolves the fields it adds. `sdl`: text or parsed. */
export function resolvers(sdl: string | DocumentNode = schemaSdl()): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const area of [descriptorResolvers(declaredFields(sdl)), ...AREAS]) {
    for (const [type, fields] of Object.entries(area)) {
      merged[type] = fields instanceof GraphQLScalarType ? fields : { ...(merged[type] as object), ...(fields as object) };
    }
  }
  return merged;
}
