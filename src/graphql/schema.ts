import { GraphQLScalarType } from 'graphql';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { authResolvers } from './resolvers/auth.js';
import { entityResolvers } from './resolvers/common.js';
import { datasetResolvers } from './resolvers/datasets.js';
import { entityReaders } from './resolvers/entities.js';
import { metadataTestResolvers } from './resolvers/metadata-tests.js';
import { mutationResolvers } from './resolvers/mutations.js';
import { relationshipResolvers } from './resolvers/relationships.js';
import { searchResolvers } from './resolvers/search.js';
import { timeseriesResolvers } from './resolvers/timeseries.js';
import { userResolvers } from './resolvers/users.js';
import { LongScalar } from './scalars.js';

/**
 * One SDL file and one resolver module per area. A new area adds its file here and its resolvers below.
 */
const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'schema');
const FILES = ['common', 'datasets', 'tags', 'entities', 'auth', 'search', 'timeseries', 'metadata-tests', 'relationships', 'users'];
export const schemaFiles = () => FILES.map((f) => path.join(dir, `${f}.graphql`));

const AREAS: Record<string, unknown>[] = [{ Long: LongScalar }, entityResolvers, datasetResolvers, entityReaders, mutationResolvers, authResolvers, searchResolvers, timeseriesResolvers, metadataTestResolvers, relationshipResolvers, userResolvers];

export function resolvers(): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const area of AREAS) {
    for (const [type, fields] of Object.entries(area)) {
      merged[type] = fields instanceof GraphQLScalarType ? fields : { ...(merged[type] as object), ...(fields as object) };
    }
  }
  return merged;
}
