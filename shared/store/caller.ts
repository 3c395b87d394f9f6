import { ApiError, KeyRevoked, PlanRequired, RateLimitUnavailable, Unauthorized } from '../errors.js';
import type { KeyScope } from '../keys.js';
import type { Db } from './db.js';
import { StoreError, storeFaultCause } from './faults.js';
import { span } from './trace.js';

/**
 * Key, workspace, plan, creator's standing, the reach count and the analysis the call names (if the key
 * reaches it), in one round trip whose cost does not grow with the workspace: api_caller
 * (shared/admin/sql/functions/caller.sql) holds the statement, so its plan is kept per backend instead of being made again on every call. Reach =
 * key scope ∩ what the creator may read today (membership, suspension, brand restrictions). The statement
 * also says whether the last_used_at stamp is due, and keeps it itself when asked to and the session may
 * write (the role may update that column only).
 */
const CALLER_SQL = 'SELECT * FROM api_caller($1::text, $2::integer, $3::text, $4::boolean)';

/** An analysis as the key reaches it: its id for the store, its slug for the caller. */
export interface ReachedAnalysis {
  id: string;
  slug: string;
}

/** Who is calling, as one SQL round trip at the head of the chain establishes it: the key, its workspace and plan, and its reach. */
export interface Caller {
  key: {
    id: string;
    name: string;
    prefix: string;
    scope: KeyScope;
    brand: string | null;
    pinnedAnalysis: string | null;
    createdAt: Date;
    expiresAt: Date;
    lastUsedAt: Date;
  };
  workspace: { id: string; name: string; slug: string };
  plan: { key: string; perMinute: number };
  reach: {
    /** How many analyses the key may read right now: key scope intersected with its creator's access. */
    count: number;
    /**
     * The analysis the call names (path or tool argument), as it named it, and what it resolved to inside
     * the reach: null when it does not exist or is out of reach, on purpose the same answer. Absent when
     * the call names none.
     */
    named?: { ref: string; analysis: ReachedAnalysis | null };
  };
  /**
   * The last_used_at stamp sent on a connection of its own (DB_WRITER_HOST), when this call sent one:
   * settles (never rejects) within a bounded wait, and the chain waits for it before replying.
   */
  stamped?: Promise<void>;
}

interface CallerRow {
  id: string;
  name: string;
  prefix: string;
  scope: KeyScope;
  alive: boolean;
  created_at: Date;
  expires_at: Date;
  last_used_at: Date;
  stamp_due: boolean;
  brand_name: string | null;
  pinned_slug: string | null;
  workspace_id: string;
  workspace_name: string;
  workspace_slug: string;
  plan_key: string;
  api_access: boolean;
  calls_per_minute: number;
  reach_count: number;
  analysis_id: string | null;
  analysis_slug: string | null;
}

export interface CallerOptions {
  lastUsedThrottleSeconds: number;
  planCeilings?: Record<string, number> | undefined;
  /**
   * Keeps a due last_used_at stamp on a connection of its own (a writer, when the service reads from a
   * read-only endpoint); resolves, never rejects. Without it the caller statement keeps the stamp
   * itself, where the session may write.
   */
  stamp?: ((keyId: string) => Promise<void>) | undefined;
}

/**
 * Resolves a fingerprint to a live caller or throws the docs/contract.md#authentication refusal. Unknown and dead keys cost
 * the same single statement; so do an analysis out of reach and one that does not exist. A store that cannot
 * serve surfaces as upstream_timeout and a configuration fault as internal_error (both from Db); a
 * statement the answering store failed means reach could not be established: rate_limit_unavailable
 * (docs/contract.md#errors), refused, never served. The cause goes to the log. `analysis` is the reference
 * the call names, if any.
 */
export async function lookupCaller(db: Db, fp: string, opts: CallerOptions, analysis?: string): Promise<Caller> {
  // A NUL cannot be in a stored slug, and PostgreSQL refuses it in a text parameter: such a reference names nothing.
  const ref = analysis === undefined || analysis.includes('\u0000') ? null : analysis;
  let rows: CallerRow[];
  try {
    rows = await span('caller', () => db.query<CallerRow>(CALLER_SQL, [fp, opts.lastUsedThrottleSeconds, ref, opts.stamp === undefined]));
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new RateLimitUnavailable(err instanceof StoreError ? err.cause : storeFaultCause(err, 'query'));
  }
  const row = rows[0];
  if (!row) throw new Unauthorized();
  if (!row.alive) throw new KeyRevoked();
  if (!row.api_access) throw new PlanRequired();
  if (!Number.isInteger(row.reach_count) || row.reach_count < 0)
    throw new RateLimitUnavailable({ fault: 'statement', phase: 'query', message: 'the reach count is not a count' });
  const reached = row.analysis_id !== null && row.analysis_slug !== null ? { id: row.analysis_id, slug: row.analysis_slug } : null;
  return {
    key: {
      id: row.id,
      name: row.name,
      prefix: row.prefix,
      scope: row.scope,
      brand: row.brand_name,
      pinnedAnalysis: row.pinned_slug,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      lastUsedAt: row.last_used_at,
    },
    workspace: { id: row.workspace_id, name: row.workspace_name, slug: row.workspace_slug },
    plan: { key: row.plan_key, perMinute: opts.planCeilings?.[row.plan_key] ?? row.calls_per_minute },
    reach: { count: row.reach_count, ...(analysis === undefined ? {} : { named: { ref: analysis, analysis: reached } }) },
    ...(row.stamp_due && opts.stamp ? { stamped: opts.stamp(row.id) } : {}),
  };
}
