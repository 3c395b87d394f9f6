import { catalogReads } from './catalog/index.js';
import { figureReads } from './figures/index.js';
import { identityReads } from './identity/index.js';
import type { Family, ReadDef } from './types.js';

/** Each family's part of the table, by family: what its Lambda bundles (functions/<family>/handler.ts). */
export const readsByFamily: Readonly<Record<Family, readonly ReadDef[]>> = {
  identity: identityReads,
  figures: figureReads,
  catalog: catalogReads,
};

/**
 * The one table of reads, in the order of docs/contract.md#the-fifteen-reads. REST routes, MCP tools,
 * openapi.json and the CDK routes all derive from it; a family Lambda takes only its own part (readsByFamily)
 * so it bundles nothing else.
 */
export const reads: readonly ReadDef[] = [...identityReads, ...figureReads, ...catalogReads];

export function readByName(name: string): ReadDef | undefined {
  return reads.find((r) => r.name === name);
}
