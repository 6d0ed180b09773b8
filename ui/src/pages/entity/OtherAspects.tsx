import { useQuery } from '@tanstack/react-query';
import { gql, typed } from '../../gql';

/**
 * Aspects the page has no view of its own for — a later DataHub release's (versionProperties, dataTransformLogic, …)
 * and a deployment's own (ALMANAC_REGISTRY) — as readable, collapsible JSON. They come from the generic `aspects`
 * field every entity type has, asked on the entity's own object type.
 */
const SHOWN_ELSEWHERE = new Set([
  'status', 'ownership', 'globalTags', 'glossaryTerms', 'domains', 'institutionalMemory', 'deprecation', 'browsePaths', 'browsePathsV2',
  'container', 'subTypes', 'dataPlatformInstance', 'schemaMetadata', 'editableSchemaMetadata', 'datasetProperties', 'editableDatasetProperties',
  'chartInfo', 'editableChartProperties', 'dashboardInfo', 'editableDashboardProperties', 'dataJobInfo', 'editableDataJobProperties', 'dataFlowInfo',
  'editableDataFlowProperties', 'containerProperties', 'editableContainerProperties', 'domainProperties', 'dataProductProperties', 'tagProperties',
  'glossaryTermInfo', 'glossaryNodeInfo', 'corpUserInfo', 'corpUserEditableInfo', 'corpGroupInfo', 'corpGroupEditableInfo', 'notebookInfo',
  'editableNotebookProperties', 'mlModelProperties', 'editableMlModelProperties', 'mlModelGroupProperties', 'mlFeatureProperties',
  'mlFeatureTableProperties', 'mlPrimaryKeyProperties', 'corpUserCredentials', 'corpUserSettings', 'groupMembership', 'nativeGroupMembership',
  'roleMembership', 'origin', 'corpUserStatus', 'dataPlatformInfo', 'upstreamLineage', 'dataJobInputOutput',
]);

const ASPECTS = (typename: string) => typed<{ entity: { aspects?: { aspectName: string; payload: string | null }[] | null } | null }, { urn: string }>(/* GraphQL */ `
  query uiAspects($urn: String!) { entity(urn: $urn) { ... on ${typename} { aspects { aspectName payload } } } }
`);

function pretty(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

export function OtherAspects({ urn, typename }: { urn: string; typename: string }) {
  const valid = /^\w+$/.test(typename);
  const { data, error } = useQuery({
    queryKey: ['entity', urn, 'aspects', typename],
    enabled: valid,
    queryFn: ({ signal }) => gql(ASPECTS(typename), { urn }, { signal }),
  });
  // Key aspects repeat the urn; the rest have a view of their own on this page.
  const aspects = (data?.entity?.aspects ?? []).filter((a) => !SHOWN_ELSEWHERE.has(a.aspectName) && !a.aspectName.endsWith('Key'));
  if (!valid || (!error && aspects.length === 0)) return null;
  return (
    <section className="card" aria-labelledby="aspects-h">
      <h2 id="aspects-h">More aspects <span className="muted small">({aspects.length})</span></h2>
      {error ? <p className="error" role="alert">{(error as Error).message}</p> : null}
      {aspects.map((a) => (
        <details key={a.aspectName} className="aspect-panel">
          <summary><code>{a.aspectName}</code></summary>
          <pre tabIndex={0} aria-label={`${a.aspectName} as JSON`}>{pretty(a.payload ?? 'null')}</pre>
        </details>
      ))}
    </section>
  );
}
