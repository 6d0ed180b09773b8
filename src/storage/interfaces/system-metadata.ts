/** System metadata of an aspect or time-series row, as DataHub's clients send it (run ids, when observed). */
export interface SystemMetadata {
  lastObserved?: number;
  runId?: string;
  lastRunId?: string;
  [key: string]: unknown;
}
