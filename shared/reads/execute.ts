import type { Config } from '../config/service.js';
import { AnalysisNotFound, InternalError } from '../errors.js';
import { isUuid } from '../formats.js';
import type { BudgetState } from '../store/budget.js';
import type { Caller, ReachedAnalysis } from '../store/caller.js';
import type { Db } from '../store/db.js';
import { tracedDb } from '../store/trace.js';
import { isScoped, type ReadContext, type ReadDef, type ReadInput } from './types.js';
import { validateInput } from './validate.js';

/**
 * How an analysis reference is compared: one shaped like a uuid names an analysis by id, in any case; any
 * other is a slug, exact (the caller statement, api_caller, applies the same rule).
 */
export function canonicalRef(ref: string): string {
  return isUuid(ref) ? ref.toLowerCase() : ref;
}

/**
 * The analysis named by slug or id, if the key reaches it now. Absent and out-of-reach are the same
 * refusal, on purpose (docs/contract.md#authentication point 11), and came from the same statement. The
 * caller statement resolved the reference the call carries, so this costs no round trip; a read naming
 * another reference than the one resolved is a wiring fault, refused as internal_error, never served.
 */
export function resolveAnalysis(caller: Caller, ref: string): ReachedAnalysis {
  const named = caller.reach.named;
  if (!named || canonicalRef(named.ref) !== canonicalRef(ref))
    throw new InternalError(new Error('the read names an analysis other than the one the caller statement resolved'));
  if (!named.analysis) throw new AnalysisNotFound();
  return named.analysis;
}

/** A read's input once validated, and the analysis it names resolved inside the key's reach. */
export interface Prepared {
  input: ReadInput;
  analysis: ReachedAnalysis | undefined;
}

/** Parse, then check reach, before any data query (PostgREST's order). Shared by REST and MCP. */
export function prepareRead(read: ReadDef, caller: Caller, raw: Record<string, unknown>): Prepared {
  const input: ReadInput = validateInput(read, raw);
  const analysis = isScoped(read) ? resolveAnalysis(caller, String(input.analysis)) : undefined;
  return { input, analysis };
}

export interface ExecuteDeps {
  db: Db;
  config: Pick<Config, 'CURSOR_SECRET'>;
}

/** What a read runs with: the caller, its budget, the store, the resolved analysis and the time of the call. */
export function readContext(
  deps: ExecuteDeps,
  requestId: string,
  caller: Caller,
  budget: BudgetState,
  analysis: ReachedAnalysis | undefined,
): ReadContext {
  return { requestId, caller, budget, db: tracedDb(deps.db), analysis, now: new Date(), cursorSecret: deps.config.CURSOR_SECRET };
}
