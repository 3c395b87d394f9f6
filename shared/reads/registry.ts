import { getAnalysis, listAnalyses } from './identity/analyses.js';
import { me } from './identity/me.js';
import type { ReadDef } from './types.js';

/** The one table of reads. REST routes, MCP tools, openapi.json and the CDK routes all derive from it. */
export const reads: readonly ReadDef[] = [me, listAnalyses, getAnalysis] as unknown as readonly ReadDef[];

export function readByName(name: string): ReadDef | undefined {
  return reads.find((r) => r.name === name);
}
