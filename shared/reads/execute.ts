import type { Config } from '../config.js';
import { AnalysisNotFound } from '../errors.js';
import { validateInput } from '../http/input.js';
import type { Db } from '../store/db.js';
import type { BudgetState, Identity, ReadContext, ReadDef } from './types.js';
import { isScoped } from './types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The analysis named by slug or id, if the key reaches it now. Absent and out-of-reach are the same
 * refusal, on purpose (SPEC §5.11). Reach came with the identity, so this costs no round trip.
 */
export function resolveAnalysis(identity: Identity, ref: string): { id: string; slug: string } {
  const byId = UUID.test(ref) ? ref.toLowerCase() : undefined;
  const found = identity.reach.find((a) => a.slug === ref || a.id === byId);
  if (!found) throw new AnalysisNotFound();
  return found;
}

export interface Prepared {
  input: Record<string, unknown>;
  analysis: { id: string; slug: string } | undefined;
}

/** Parse, then check reach, before any data query (PostgREST's order). Shared by REST and MCP. */
export function prepareRead(read: ReadDef, identity: Identity, raw: Record<string, unknown>): Prepared {
  const input = validateInput(read, raw) as Record<string, unknown>;
  const analysis = isScoped(read) ? resolveAnalysis(identity, String(input.analysis)) : undefined;
  return { input, analysis };
}

export interface ExecuteDeps {
  db: Db;
  config: Pick<Config, 'CURSOR_SECRET'>;
}

export function readContext(deps: ExecuteDeps, requestId: string, identity: Identity, budget: BudgetState, analysis: Prepared['analysis']): ReadContext {
  return { requestId, identity, budget, db: deps.db, analysis, now: new Date(), cursorSecret: deps.config.CURSOR_SECRET };
}
