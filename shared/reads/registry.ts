import { getAnswer, listAnswers } from './catalog/answers.js';
import { listPrompts } from './catalog/prompts.js';
import { getRun, listRuns } from './catalog/runs.js';
import { listCompetitors } from './figures/competitors.js';
import { listEngines } from './figures/engines.js';
import { listGroupPrompts, listGroups } from './figures/groups.js';
import { getMetrics } from './figures/metrics.js';
import { listSources } from './figures/sources.js';
import { getMetricsTimeseries } from './figures/timeseries.js';
import { getAnalysis, listAnalyses } from './identity/analyses.js';
import { me } from './identity/me.js';
import type { ReadDef } from './types.js';

/** The one table of reads. REST routes, MCP tools, openapi.json and the CDK routes all derive from it. */
export const reads: readonly ReadDef[] = [me, listAnalyses, getAnalysis, getMetrics, getMetricsTimeseries, listEngines, listCompetitors, listSources, listGroups, listGroupPrompts, listPrompts, listRuns, getRun, listAnswers, getAnswer] as unknown as readonly ReadDef[];

export function readByName(name: string): ReadDef | undefined {
  return reads.find((r) => r.name === name);
}
