import * as z from 'zod';
import { ApiError, KeyRevoked, PlanRequired, RateLimitUnavailable, Unauthorized } from '../errors.js';
import type { KeyScope } from '../keys.js';
import type { Db } from './db.js';
import { StoreError, storeFaultCause } from './faults.js';

/**
 * Key, workspace, plan, creator's standing and the key's reach, in one round trip: api_identity
 * (migration 006) holds the statement, so its plan is kept per backend instead of being made again on
 * every call. Reach = key scope ∩ what the creator may read today (membership, suspension, brand
 * restrictions). It also stamps last_used_at, at most once per throttle period (the role may update
 * that column only).
 */
const IDENTITY_SQL = 'SELECT * FROM api_identity($1::text, $2::integer)';

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
  /** Analyses the key may read right now: key scope intersected with its creator's access. */
  reach: ReadonlyArray<{ id: string; slug: string }>;
}

const reachSchema = z.array(z.object({ id: z.string(), slug: z.string() }));

interface CallerRow {
  id: string;
  name: string;
  prefix: string;
  scope: KeyScope;
  alive: boolean;
  created_at: Date;
  expires_at: Date;
  last_used_at: Date;
  brand_name: string | null;
  pinned_slug: string | null;
  workspace_id: string;
  workspace_name: string;
  workspace_slug: string;
  plan_key: string;
  api_access: boolean;
  calls_per_minute: number;
  reach: unknown;
}

export interface CallerOptions {
  lastUsedThrottleSeconds: number;
  planCeilings?: Record<string, number> | undefined;
}

/**
 * Resolves a fingerprint to a live caller or throws the docs/contract.md#authentication refusal. Unknown and dead keys cost
 * the same single statement. A store that cannot serve surfaces as upstream_timeout and a configuration
 * fault as internal_error (both from Db); a statement the answering store failed means reach could not
 * be established: rate_limit_unavailable (docs/contract.md#errors), refused, never served. The cause goes to the log.
 */
export async function lookupCaller(db: Db, fp: string, opts: CallerOptions): Promise<Caller> {
  let rows: CallerRow[];
  try {
    rows = await db.query<CallerRow>(IDENTITY_SQL, [fp, opts.lastUsedThrottleSeconds]);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new RateLimitUnavailable(err instanceof StoreError ? err.cause : storeFaultCause(err, 'query'));
  }
  const row = rows[0];
  if (!row) throw new Unauthorized();
  if (!row.alive) throw new KeyRevoked();
  if (!row.api_access) throw new PlanRequired();
  const reach = reachSchema.safeParse(row.reach);
  if (!reach.success)
    throw new RateLimitUnavailable({ fault: 'statement', phase: 'query', message: 'the reach column is not a list of {id, slug}' });
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
    reach: reach.data,
  };
}
