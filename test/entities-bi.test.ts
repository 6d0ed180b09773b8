import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { systemActor } from '../src/model/actor.js';
import { ingestFiles } from '../src/services/ingest-files.js';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';

/** Charts and dashboards as first-class GraphQL types, read from DataHub 0.12.1's BI connector golden files. */
const FIXTURES = [
  // Usage history first: both Looker files write dashboard_elements.2, and the tests read the main golden file's.
  'looker_usage_history', 'looker_mces', 'mode_mces', 'metabase_mces', 'powerbi_report', 'superset_ingest']
  .map((f) => path.resolve(import.meta.dirname, 'fixtures/connectors', `${f}.json`));

const MODE_CHART = 'urn:li:chart:(mode,f622b9ee725b)';
const MODE_DASHBOARD = 'urn:li:dashboard:(mode,2934237)';
const LOOKER_CHART = 'urn:li:chart:(looker,dashboard_elements.2)';
const LOOKER_DASHBOARD = 'urn:li:dashboard:(looker,dashboards.11)';
const POWERBI_REPORT = 'urn:li:dashboard:(powerbi,reports.5b218778-e7a5-4d73-8187-f10824047715)';
const METABASE_CHART = 'urn:li:chart:(metabase,1)';

/** Shared fields no fixture here fills in: asked anyway, so a mapping that invents data fails. */
const UNSET = { tags: null, globalTags: null, glossaryTerms: null, institutionalMemory: null, domain: null, deprecation: null, container: null,
  parentContainers: { count: 0 }, dataPlatformInstance: null };

const SHARED = `
  ownership { owners { owner { ... on Entity { urn } } type ownershipType { urn } associatedUrn } lastModified { time actor } }
  tags { tags { tag { urn } associatedUrn } }
  globalTags { tags { tag { urn } } }
  glossaryTerms { terms { term { urn } } }
  institutionalMemory { elements { url description } }
  domain { domain { urn } }
  deprecation { deprecated note }
  status { removed }
  subTypes { typeNames }
  container { urn }
  parentContainers { count }
  dataPlatformInstance { urn }
  embed { renderUrl }
  browsePaths { path }
  browsePathV2 { path { name entity { urn } } }
  lastIngested
  exists
  privileges { canEditLineage }
  inputFields { fields { schemaFieldUrn schemaField { fieldPath label nullable description type nativeDataType recursive
    tags { tags { tag { urn } } } isPartOfKey schemaFieldEntity { urn } } } }`;

forEachEngine('BI entity types: charts and dashboards', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    const summary = await ingestFiles(t.catalog.entities, FIXTURES, systemActor());
    assert.deepEqual(summary.failures, []);
  });
  after(async () => t.close());

  const ok = async (query: string) => {
    const res = await t.graphql(query);
    assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data;
  };

  test('chart(urn): Mode\'s golden chart with its properties, deprecated info, query, lineage and the shared fields', async () => {
    const data = await ok(`{ chart(urn: "${MODE_CHART}") { urn type tool chartId platform { urn name }
      properties { name description externalUrl type access customProperties { key value associatedUrn } lastRefreshed
        created { time actor } lastModified { time actor } deleted { time } }
      info { name description externalUrl type inputs { urn } }
      editableProperties { description } editableInfo { description } query { rawQuery type }
      lineage(input: { direction: UPSTREAM }) { total relationships { type entity { urn } } }
      down: lineage(input: { direction: DOWNSTREAM }) { total relationships { type entity { urn } } }
      ${SHARED} } }`);
    assert.deepEqual(data.chart, {
      ...UNSET,
      urn: "urn:li:chart:(mode,f622b9ee725b)",
      type: "CHART",
      tool: "mode",
      chartId: "f622b9ee725b",
      platform: { urn: "urn:li:dataPlatform:mode", name: "mode" },
      properties: {
        name: "Customer Staff Table",
        description: "",
        externalUrl: "https://app.mode.com/acryltest/reports/9d2da37fa91e/viz/f622b9ee725b",
        type: "TABLE",
        access: null,
        customProperties: [
          {
            key: "Columns",
            value: "payment_date,Staff First Name,amount,Staff Last Name",
            associatedUrn: "urn:li:chart:(mode,f622b9ee725b)",
          },
          { key: "Filters", value: "amount", associatedUrn: "urn:li:chart:(mode,f622b9ee725b)" },
        ],
        lastRefreshed: null,
        created: { time: 1639170083088, actor: "urn:li:corpuser:modeuser" },
        lastModified: { time: 1639182684438, actor: "urn:li:corpuser:modeuser" },
        deleted: null,
      },
      info: {
        name: "Customer Staff Table",
        description: "",
        externalUrl: "https://app.mode.com/acryltest/reports/9d2da37fa91e/viz/f622b9ee725b",
        type: "TABLE",
        inputs: [
          { urn: "urn:li:dataset:(urn:li:dataPlatform:postgres,dvdrental.public.staff,PROD)" },
          { urn: "urn:li:dataset:(urn:li:dataPlatform:postgres,dvdrental.public.payment,PROD)" },
          { urn: "urn:li:dataset:(urn:li:dataPlatform:postgres,dvdrental.public.rental,PROD)" },
        ],
      },
      editableProperties: null,
      editableInfo: null,
      query: {
        rawQuery: "SELECT  rental.*,  staff.first_name \"Staff First Name\", staff.last_name \"Staff Last Name\" FROM  {{  @join_on_definition    as                      rental  }} join staff on staff.staff_id = rental.staff_id",
        type: "SQL",
      },
      lineage: {
        total: 3,
        relationships: [
          { type: "Consumes", entity: { urn: "urn:li:dataset:(urn:li:dataPlatform:postgres,dvdrental.public.payment,PROD)" } },
          { type: "Consumes", entity: { urn: "urn:li:dataset:(urn:li:dataPlatform:postgres,dvdrental.public.rental,PROD)" } },
          { type: "Consumes", entity: { urn: "urn:li:dataset:(urn:li:dataPlatform:postgres,dvdrental.public.staff,PROD)" } },
        ],
      },
      down: { total: 1, relationships: [{ type: "Contains", entity: { urn: "urn:li:dashboard:(mode,2934237)" } }] },
      ownership: {
        owners: [
          {
            owner: { urn: "urn:li:corpuser:modeuser" },
            type: "DATAOWNER",
            ownershipType: { urn: "urn:li:ownershipType:__system__dataowner" },
            associatedUrn: "urn:li:chart:(mode,f622b9ee725b)",
          },
        ],
        lastModified: { time: 0, actor: "urn:li:corpuser:unknown" },
      },
      status: { removed: false },
      subTypes: null,
      embed: null,
      browsePaths: [{ path: ["mode", "acryl", "AcrylTest", "Report 1", "Customer and staff", "Customer Staff Table"] }],
      browsePathV2: {
        path: [
          { name: "acryl", entity: null },
          { name: "AcrylTest", entity: null },
          { name: "Report 1", entity: null },
          { name: "Customer and staff", entity: null },
          { name: "Customer Staff Table", entity: null },
        ],
      },
      lastIngested: 1638860400000,
      exists: true,
      privileges: { canEditLineage: true },
      inputFields: null,
    });
  });

  test('dashboard(urn): Mode\'s golden dashboard, its charts through the Contains relationships and info.charts', async () => {
    const data = await ok(`{ dashboard(urn: "${MODE_DASHBOARD}") { urn type tool dashboardId platform { urn name }
      properties { name description externalUrl access customProperties { key value } lastRefreshed created { time actor }
        lastModified { time actor } deleted { time } }
      info { name charts { urn properties { name } } }
      relationships(input: { types: ["Contains"], direction: OUTGOING }) { total relationships { type entity { urn ... on Chart { properties { name } } } } }
      lineage(input: { direction: UPSTREAM }) { total relationships { type entity { urn } } }
      ${SHARED} } }`);
    assert.deepEqual(data.dashboard, {
      ...UNSET,
      urn: "urn:li:dashboard:(mode,2934237)",
      type: "DASHBOARD",
      tool: "mode",
      dashboardId: "2934237",
      platform: { urn: "urn:li:dataPlatform:mode", name: "mode" },
      properties: {
        name: "Report 1",
        description: "First Report",
        externalUrl: "https://app.mode.com/acryl/reports/9d2da37fa91e",
        access: null,
        customProperties: [],
        lastRefreshed: null,
        created: { time: 1639169724316, actor: "urn:li:corpuser:modeuser" },
        lastModified: { time: 1639182684451, actor: "urn:li:corpuser:modeuser" },
        deleted: null,
      },
      info: { name: "Report 1", charts: [{ urn: "urn:li:chart:(mode,f622b9ee725b)", properties: { name: "Customer Staff Table" } }] },
      relationships: {
        total: 1,
        relationships: [
          {
            type: "Contains",
            entity: { urn: "urn:li:chart:(mode,f622b9ee725b)", properties: { name: "Customer Staff Table" } },
          },
        ],
      },
      lineage: { total: 1, relationships: [{ type: "Contains", entity: { urn: "urn:li:chart:(mode,f622b9ee725b)" } }] },
      ownership: {
        owners: [
          {
            owner: { urn: "urn:li:corpuser:modeuser" },
            type: "DATAOWNER",
            ownershipType: { urn: "urn:li:ownershipType:__system__dataowner" },
            associatedUrn: "urn:li:dashboard:(mode,2934237)",
          },
        ],
        lastModified: { time: 0, actor: "urn:li:corpuser:unknown" },
      },
      status: { removed: false },
      subTypes: null,
      embed: null,
      browsePaths: [{ path: ["mode", "acryl", "AcrylTest", "Report 1"] }],
      browsePathV2: { path: [{ name: "acryl", entity: null }, { name: "AcrylTest", entity: null }, { name: "Report 1", entity: null }] },
      lastIngested: 1638860400000,
      exists: true,
      privileges: { canEditLineage: true },
      inputFields: null,
    });
  });

  test('Looker: a chart\'s and a dashboard\'s inputFields with their SchemaFields, the dashboard\'s embed', async () => {
    const data = await ok(`{ lc: chart(urn: "${LOOKER_CHART}") { ${SHARED} }
      ld: dashboard(urn: "${LOOKER_DASHBOARD}") { properties { name externalUrl } ${SHARED} } }`);
    assert.deepEqual(data, {
      lc: {
        ...UNSET,
        ownership: null,
        status: { removed: false },
        subTypes: null,
        embed: null,
        browsePaths: [{ path: ["looker"] }],
        browsePathV2: { path: [{ name: "Default", entity: null }] },
        lastIngested: 1586847600000,
        exists: true,
        privileges: { canEditLineage: true },
        inputFields: {
          fields: [
            {
              schemaFieldUrn: "urn:li:schemaField:(urn:li:chart:(looker,dashboard_elements.2),calc)",
              schemaField: {
                fieldPath: "calc",
                label: "foobar",
                nullable: false,
                description: "",
                type: "STRING",
                nativeDataType: "string",
                recursive: false,
                tags: { tags: [] },
                isPartOfKey: false,
                schemaFieldEntity: { urn: "urn:li:schemaField:(urn:li:chart:(looker,dashboard_elements.2),calc)" },
              },
            },
            {
              schemaFieldUrn: "urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:looker,data.explore.my_view,PROD),dim1)",
              schemaField: {
                fieldPath: "dim1",
                label: "Dimensions One Label",
                nullable: false,
                description: "dimension one description",
                type: "STRING",
                nativeDataType: "string",
                recursive: false,
                tags: { tags: [{ tag: { urn: "urn:li:tag:Dimension" } }] },
                isPartOfKey: false,
                schemaFieldEntity: { urn: "urn:li:schemaField:(urn:li:chart:(looker,dashboard_elements.2),dim1)" },
              },
            },
          ],
        },
      },
      ld: {
        ...UNSET,
        properties: { name: "foo", externalUrl: "https://looker.company.com/dashboards/11" },
        ownership: null,
        status: { removed: false },
        subTypes: null,
        embed: { renderUrl: "https://looker.company.com/embed/dashboards/11" },
        browsePaths: [{ path: ["looker"] }],
        browsePathV2: { path: [{ name: "Default", entity: null }] },
        lastIngested: 1586847600000,
        exists: true,
        privileges: { canEditLineage: true },
        inputFields: {
          fields: [
            {
              schemaFieldUrn: "urn:li:schemaField:(urn:li:chart:(looker,dashboard_elements.2),calc)",
              schemaField: {
                fieldPath: "calc",
                label: "foobar",
                nullable: false,
                description: "",
                type: "STRING",
                nativeDataType: "string",
                recursive: false,
                tags: { tags: [] },
                isPartOfKey: false,
                schemaFieldEntity: { urn: "urn:li:schemaField:(urn:li:dashboard:(looker,dashboards.11),calc)" },
              },
            },
            {
              schemaFieldUrn: "urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:looker,data.explore.my_view,PROD),dim1)",
              schemaField: {
                fieldPath: "dim1",
                label: "Dimensions One Label",
                nullable: false,
                description: "dimension one description",
                type: "STRING",
                nativeDataType: "string",
                recursive: false,
                tags: { tags: [{ tag: { urn: "urn:li:tag:Dimension" } }] },
                isPartOfKey: false,
                schemaFieldEntity: { urn: "urn:li:schemaField:(urn:li:dashboard:(looker,dashboards.11),dim1)" },
              },
            },
            {
              schemaFieldUrn: "urn:li:schemaField:(urn:li:chart:(looker,dashboard_elements.10),calc)",
              schemaField: {
                fieldPath: "calc",
                label: "foobar",
                nullable: false,
                description: "",
                type: "STRING",
                nativeDataType: "string",
                recursive: false,
                tags: { tags: [] },
                isPartOfKey: false,
                schemaFieldEntity: { urn: "urn:li:schemaField:(urn:li:dashboard:(looker,dashboards.11),calc)" },
              },
            },
          ],
        },
      },
    });
  });

  test('PowerBI and Metabase: a report\'s subTypes, owners and browsePathV2, a card\'s query and owner', async () => {
    const data = await ok(`{ pb: dashboard(urn: "${POWERBI_REPORT}") { properties { name externalUrl } ${SHARED} }
      mb: chart(urn: "${METABASE_CHART}") { query { rawQuery type } ${SHARED} } }`);
    assert.deepEqual(data, {
      pb: {
        ...UNSET,
        properties: {
          name: "SalesMarketing",
          externalUrl: "https://app.powerbi.com/groups/f089354e-8366-4e18-aea3-4cb4a3a50b48/reports/5b218778-e7a5-4d73-8187-f10824047715",
        },
        ownership: {
          owners: [
            {
              owner: { urn: "urn:li:corpuser:users.User1@foo.com" },
              type: "NONE",
              ownershipType: { urn: "urn:li:ownershipType:__system__none" },
              associatedUrn: "urn:li:dashboard:(powerbi,reports.5b218778-e7a5-4d73-8187-f10824047715)",
            },
            {
              owner: { urn: "urn:li:corpuser:users.User2@foo.com" },
              type: "NONE",
              ownershipType: { urn: "urn:li:ownershipType:__system__none" },
              associatedUrn: "urn:li:dashboard:(powerbi,reports.5b218778-e7a5-4d73-8187-f10824047715)",
            },
          ],
          lastModified: { time: 0, actor: "urn:li:corpuser:unknown" },
        },
        status: { removed: false },
        subTypes: { typeNames: ["Report"] },
        embed: null,
        browsePaths: [{ path: ["powerbi", "demo-workspace"] }],
        browsePathV2: { path: [{ name: "demo-workspace", entity: null }] },
        lastIngested: 1643871600000,
        exists: true,
        privileges: { canEditLineage: true },
        inputFields: null,
      },
      mb: {
        ...UNSET,
        query: {
          rawQuery: "SELECT\\n\\tcustomer.customer_id,\\n\\tfirst_name,\\n\\tlast_name,\\n\\tamount,\\n\\tpayment_date,\\n\\trental_id\\nFROM\\n\\tcustomer\\nINNER JOIN payment \\n    ON payment.customer_id = customer.customer_id\\nORDER BY payment_date",
          type: "SQL",
        },
        ownership: {
          owners: [
            {
              owner: { urn: "urn:li:corpuser:admin@metabase.com" },
              type: "DATAOWNER",
              ownershipType: { urn: "urn:li:ownershipType:__system__dataowner" },
              associatedUrn: "urn:li:chart:(metabase,1)",
            },
          ],
          lastModified: { time: 0, actor: "urn:li:corpuser:unknown" },
        },
        status: { removed: false },
        subTypes: null,
        embed: null,
        browsePaths: [{ path: ["metabase"] }],
        browsePathV2: { path: [{ name: "Default", entity: null }] },
        lastIngested: 1636614000000,
        exists: true,
        privileges: { canEditLineage: true },
        inputFields: null,
      },
    });
  });

  test('edits: a tag, an owner, a link and (through updateChart/updateDashboard) a description on a chart and a dashboard are read back; updateDescription is refused for both, as in DataHub 0.12.1', async () => {
    const chart = 'urn:li:chart:(superset,10)';
    const dashboard = 'urn:li:dashboard:(superset,1)';
    const owner = 'urn:li:corpuser:users.User1@foo.com';
    for (const u of [chart, dashboard]) {
      assert.deepEqual(await ok(`mutation { addTag(input: { tagUrn: "urn:li:tag:Dimension", resourceUrn: "${u}" }) }`), { addTag: true });
      assert.deepEqual(await ok(`mutation { addOwner(input: { ownerUrn: "${owner}", ownerEntityType: CORP_USER,
        ownershipTypeUrn: "urn:li:ownershipType:__system__technical_owner", resourceUrn: "${u}" }) }`), { addOwner: true });
      assert.deepEqual(await ok(`mutation { addLink(input: { linkUrl: "https://wiki.example.com/bi", label: "Runbook", resourceUrn: "${u}" }) }`),
        { addLink: true });
      const refused = await t.graphql(`mutation { updateDescription(input: { resourceUrn: "${u}", description: "edited" }) }`);
      assert.deepEqual([refused.body.data, refused.body.errors.map((e: { message: string }) => e.message)],
        [{ updateDescription: null }, [`Failed to update description. Unsupported resource type ${u.includes(':chart:') ? 'chart' : 'dashboard'}`]]);
    }
    // Their descriptions are edited through updateChart and updateDashboard, into editableChartProperties / editableDashboardProperties.
    assert.deepEqual(await ok(`mutation { updateChart(urn: "${chart}", input: { editableProperties: { description: "Edited chart" } }) { urn } }`),
      { updateChart: { urn: chart } });
    assert.deepEqual(await ok(`mutation { updateDashboard(urn: "${dashboard}", input: { editableProperties: { description: "Edited dashboard" } }) {
      urn } }`), { updateDashboard: { urn: dashboard } });
    const edited = (u: string, description: string) => ({
      tags: { tags: [{ tag: { urn: 'urn:li:tag:Dimension' }, associatedUrn: u }] },
      globalTags: { tags: [{ tag: { urn: 'urn:li:tag:Dimension' } }] },
      ownership: { owners: [{ owner: { urn: owner }, type: 'CUSTOM', ownershipType: { urn: 'urn:li:ownershipType:__system__technical_owner' },
        associatedUrn: u }] },
      institutionalMemory: { elements: [{ url: 'https://wiki.example.com/bi', description: 'Runbook' }] },
      editableProperties: { description },
      editableInfo: { description },
    });
    const fields = `properties { name description externalUrl } editableProperties { description } editableInfo { description }
      info { description }
      tags { tags { tag { urn } associatedUrn } } globalTags { tags { tag { urn } } }
      ownership { owners { owner { ... on Entity { urn } } type ownershipType { urn } associatedUrn } }
      institutionalMemory { elements { url description } }`;
    const data = await ok(`{ c: chart(urn: "${chart}") { ${fields} } d: dashboard(urn: "${dashboard}") { ${fields} } }`);
    assert.deepEqual(data, {
      // properties.description is the edited text (as datasets'), info.description the ingested one.
      c: { properties: { name: 'test_chart_title_1', description: 'Edited chart',
        externalUrl: 'mock://mock-domain.superset.com/explore/test_chart_url_10' }, info: { description: '' }, ...edited(chart, 'Edited chart') },
      d: { properties: { name: 'test_dashboard_title_1', description: 'Edited dashboard',
        externalUrl: 'mock://mock-domain.superset.com/dashboard/test_dashboard_url_1' }, info: { description: '' },
        ...edited(dashboard, 'Edited dashboard') },
    });
  });

  test('statsSummary from the usage time series: the latest absolute views, and the last 30 days of daily buckets', async () => {
    const fields = 'statsSummary { viewCount viewCountLast30Days uniqueUserCountLast30Days topUsersLast30Days { urn } }';
    const query = `{ d: dashboard(urn: "urn:li:dashboard:(looker,dashboards.1)") { ${fields} }
      c: chart(urn: "urn:li:chart:(looker,dashboard_elements.3)") { ${fields} } none: chart(urn: "${MODE_CHART}") { ${fields} } }`;
    // Looker's golden usage is of 2020 and 2022: the absolute views count, the buckets are older than 30 days.
    assert.deepEqual(await ok(query), {
      d: { statsSummary: { viewCount: 25, viewCountLast30Days: null, uniqueUserCountLast30Days: 0, topUsersLast30Days: [] } },
      c: { statsSummary: { viewCount: 30, viewCountLast30Days: null, uniqueUserCountLast30Days: 0, topUsersLast30Days: [] } },
      none: { statsSummary: null },
    });
    const day = 24 * 3600 * 1000;
    const today = Math.floor(Date.now() / day) * day;
    const bucket = (entityType: string, urn: string, aspect: string, timestampMillis: number, value: Record<string, unknown>) =>
      ({ urn, entityType, aspect, changeType: 'UPSERT' as const, systemMetadata: null,
        value: { timestampMillis, eventGranularity: { unit: 'DAY', multiple: 1 }, ...value } });
    const users = ['a', 'b', 'c', 'd', 'e', 'f'].map((u) => `urn:li:corpuser:bi_usage_${u}`);
    await t.catalog.entities.ingest([
      bucket('dashboard', 'urn:li:dashboard:(looker,dashboards.1)', 'dashboardUsageStatistics', today - day, { viewsCount: 7,
        userCounts: users.map((user, i) => ({ user, usageCount: 10 - i })) }),
      bucket('dashboard', 'urn:li:dashboard:(looker,dashboards.1)', 'dashboardUsageStatistics', today - 2 * day, { viewsCount: 3,
        userCounts: [{ user: users[5], usageCount: 20 }] }),
      // 40 days ago: outside the window.
      bucket('dashboard', 'urn:li:dashboard:(looker,dashboards.1)', 'dashboardUsageStatistics', today - 40 * day, { viewsCount: 100,
        userCounts: [{ user: 'urn:li:corpuser:bi_usage_old', usageCount: 100 }] }),
      bucket('chart', 'urn:li:chart:(looker,dashboard_elements.3)', 'chartUsageStatistics', today - day, { viewsCount: 4,
        userCounts: [{ user: users[0], viewsCount: 1 }, { user: users[1], viewsCount: 3 }] }),
    ], systemActor());
    // Users named in more buckets first (f), then by urn, as DataHub groups them.
    assert.deepEqual(await ok(query), {
      d: { statsSummary: { viewCount: 25, viewCountLast30Days: 10, uniqueUserCountLast30Days: 6,
        topUsersLast30Days: [users[5], users[0], users[1], users[2], users[3]].map((urn) => ({ urn })) } },
      c: { statsSummary: { viewCount: 30, viewCountLast30Days: 4, uniqueUserCountLast30Days: 2,
        topUsersLast30Days: [users[0], users[1]].map((urn) => ({ urn })) } },
      none: { statsSummary: null },
    });
  });

  test('dashboard usageStats: daily buckets oldest first, per-user totals, absolute reports newest first, in the range asked', async () => {
    const urn = 'urn:li:dashboard:(looker,dashboards.1)';
    const fields = `buckets { bucket duration resource metrics { uniqueUserCount viewsCount executionsCount } }
      aggregations { uniqueUserCount viewsCount executionsCount users { user { urn } viewsCount executionsCount usageCount } }
      metrics { timestampMillis favoritesCount viewsCount executionsCount lastViewed }`;
    const data = await ok(`{ dashboard(urn: "${urn}") {
      all: usageStats(endTimeMillis: 1657152000000) { ${fields} }
      later: usageStats(startTimeMillis: 1657000000000, endTimeMillis: 1657152000000, limit: 0) { ${fields} } } }`);
    const bucket = (time: number, executionsCount: number) =>
      ({ bucket: time, duration: 'DAY', resource: urn, metrics: { uniqueUserCount: 1, viewsCount: null, executionsCount } });
    const user = (name: string, count: number) =>
      ({ user: { urn: `urn:li:corpuser:${name}@looker.com` }, viewsCount: null, executionsCount: count, usageCount: count });
    assert.deepEqual(data.dashboard, {
      all: {
        buckets: [bucket(1656979200000, 14), bucket(1657065600000, 14), bucket(1657152000000, 5)],
        aggregations: { uniqueUserCount: 2, viewsCount: null, executionsCount: 33, users: [user('test-1', 21), user('test-2', 14)] },
        metrics: [{ timestampMillis: 1586847600000, favoritesCount: 5, viewsCount: 25, executionsCount: null, lastViewed: 1586847600000 }],
      },
      later: {
        buckets: [bucket(1657065600000, 14), bucket(1657152000000, 5)],
        aggregations: { uniqueUserCount: 1, viewsCount: null, executionsCount: 19, users: [user('test-1', 5)] },
        metrics: [],
      },
    });
  });

  test('chart(urn) and dashboard(urn): an unknown entity is a 404, another type\'s urn or a malformed one a 400', async () => {
    const answer = async (query: string) => {
      const res = await t.graphql(query);
      return [res.body.data, res.body.errors.map((e: { message: string; extensions: { code: number } }) => [e.extensions.code, e.message])];
    };
    assert.deepEqual(await answer('{ chart(urn: "urn:li:chart:(looker,nope)") { urn } }'),
      [{ chart: null }, [[404, 'Entity urn:li:chart:(looker,nope) does not exist']]]);
    assert.deepEqual(await answer(`{ dashboard(urn: "${MODE_CHART}") { urn } }`),
      [{ dashboard: null }, [[400, `Invalid urn: '${MODE_CHART}' is not a dashboard urn`]]]);
    assert.deepEqual(await answer('{ chart(urn: "urn:li:chart:looker") { urn } }'),
      [{ chart: null }, [[400, "Invalid urn: 'urn:li:chart:looker' is not a valid chart urn: a chart urn has the form urn:li:chart:(<dashboardTool>,<chartId>)"]]]);
  });
});
