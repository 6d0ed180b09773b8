import { print } from 'graphql';
import { webappDocument, withTypename } from '../test/support/webapp.js';
import {
  CONNECTIONS, compare, graphqlRequest, once, scenarioOnEachEngine, type Engine, type Server,
} from './harness.js';
import { SHOWCASE_URN } from './generate.js';

/**
 * Reads of the 50-column showcase dataset through GraphQL, 32 connections, against bare Fastify answering the same
 * bytes: `read` with the selection of the performance issue (properties, schema fields with descriptions, tags,
 * terms, owners, links), `webapp-read` with DataHub's web app's own `getDataset` operation (as Apollo sends it,
 * `__typename` everywhere). `--profile` runs the Almanac server under `node --cpu-prof` and prints the top functions
 * by self time.
 */
const BASE_DATASETS = Number(process.env.BENCH_BASE_DATASETS ?? 200);

export const READ_QUERY = `query dataset($urn: String!) {
  dataset(urn: $urn) {
    urn
    name
    properties { name description qualifiedName externalUrl customProperties { key value } }
    schemaMetadata {
      fields {
        fieldPath type nativeDataType description nullable
        globalTags { tags { tag { urn name } } }
        glossaryTerms { terms { term { urn name } } }
      }
    }
    editableSchemaMetadata { editableSchemaFieldInfo { fieldPath description } }
    globalTags { tags { tag { urn name } } }
    glossaryTerms { terms { term { urn name } } }
    ownership { owners { owner { ... on CorpUser { urn username } ... on CorpGroup { urn name } } type } }
    institutionalMemory { elements { url description } }
  }
}`;

export const readRequest = (token: string) => graphqlRequest(token, JSON.stringify({ query: READ_QUERY, variables: { urn: SHOWCASE_URN } }));
export const webappRequest = (token: string) => graphqlRequest(token, JSON.stringify({ operationName: 'getDataset',
  query: print(withTypename(webappDocument('getDataset'))), variables: { urn: SHOWCASE_URN } }));

/** Checks the answer (200, data, no errors) and returns its bytes. */
export async function expectData(server: Server, req: ReturnType<typeof readRequest>, what: string): Promise<string> {
  const r = await once(server.base, req);
  const body = JSON.parse(r.text) as { data?: { dataset?: unknown }; errors?: unknown[] };
  if (r.status !== 200 || !body.data?.dataset || body.errors?.length) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 1000)}`);
  return r.text;
}

/** `--profile` runs each server under `node --cpu-prof`; `--engine sqlite|postgres` measures one engine. */
async function readScenario(scenario: 'read' | 'webapp-read', args: string[]) {
  await scenarioOnEachEngine(scenario, args, `${CONNECTIONS} connections, the 50-column showcase dataset, ${BASE_DATASETS} generated datasets beside it`,
    BASE_DATASETS, async (engine, server, token) => {
      const req = scenario === 'read' ? readRequest(token) : webappRequest(token);
      const bytes = await expectData(server, req, scenario);
      server.measuringFrom();
      const target = scenario === 'read' ? `dataset(urn) 50 columns (${Math.round(bytes.length / 1024)} kB)` : `web app getDataset (${Math.round(bytes.length / 1024)} kB)`;
      return [await compare(scenario, engine.name, target, server, req, bytes)];
    }, { baseDatasets: BASE_DATASETS });
}

export const runRead = (args: string[]) => readScenario('read', args);
export const runWebappRead = (args: string[]) => readScenario('webapp-read', args);

export type { Engine };
