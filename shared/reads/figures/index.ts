import type { ReadDef } from '../types.js';
import { listCompetitors } from './competitors.js';
import { listEngines } from './engines.js';
import { listGroupPrompts, listGroups } from './groups.js';
import { getMetrics } from './metrics.js';
import { listSources } from './sources.js';
import { getMetricsTimeseries } from './timeseries.js';

/** The figures family's part of the read table: metrics, time series, engines, competitors, sources, groups, group prompts. */
export const figureReads: readonly ReadDef[] = [
  getMetrics,
  getMetricsTimeseries,
  listEngines,
  listCompetitors,
  listSources,
  listGroups,
  listGroupPrompts,
];
