import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { ENTITY_TYPES } from './entityTypes';

/**
 * The tabs of an entity's page, in order. The first tab that applies is the default (path /<type>/<urn>); the others
 * are /<type>/<urn>/<id>. A tab's component loads its own data; `entity` is what the page's uiEntity query read.
 * To add a tab: one line here (keep the component in its own file so it is its own chunk).
 */
export interface EntityTabProps {
  urn: string;
  /** The GraphQL EntityType, e.g. DATASET. */
  type: string;
  entity: Record<string, any>;
}

export interface EntityTab {
  id: string;
  label: string;
  applies: (type: string) => boolean;
  component: LazyExoticComponent<ComponentType<EntityTabProps>>;
}

const all = () => true;
/** Types whose GraphQL object has `lineage(input:)` (from the server's entity descriptors). */
const LINEAGE_TYPES = new Set(ENTITY_TYPES.filter((t) => t.lineage).map((t) => t.type));
/** Types no metadata test can select usefully. */
const NO_TESTS = new Set(['DATA_PLATFORM', 'TEST']);

export const ENTITY_TABS: EntityTab[] = [
  { id: 'overview', label: 'Overview', applies: all, component: lazy(() => import('./pages/entity/OverviewTab')) },
  { id: 'history', label: 'History', applies: (t) => t !== 'DATA_PLATFORM', component: lazy(() => import('./pages/entity/HistoryTab')) },
  // Lineage, metadata tests and plots (ui/src/features): each its own chunk.
  { id: 'lineage', label: 'Lineage', applies: (t) => LINEAGE_TYPES.has(t), component: lazy(() => import('./features/lineage/LineageTab')) },
  { id: 'tests', label: 'Tests', applies: (t) => !NO_TESTS.has(t), component: lazy(() => import('./features/tests/EntityTests')) },
  { id: 'stats', label: 'Stats', applies: (t) => t === 'DATASET', component: lazy(() => import('./features/plots/StatsTab')) },
];
