import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { isUuid } from '../formats.js';
import { fingerprint, KEY_SCOPES, type KeyScope, newSecret, visiblePrefix } from '../keys.js';
import type { Queryable } from '../store/queryable.js';

/**
 * Key administration (docs/contract.md#authentication): create, list, revoke. Runs with an owner/admin
 * database connection, never with the read-only service role. The secret leaves this module once, in
 * createKey's result.
 */

export { KEY_SCOPES, type KeyScope };

export const MAX_ACTIVE_KEYS = 10;
export const KEY_LIFETIMES_DAYS = [90, 365] as const;
export type KeyLifetimeDays = (typeof KEY_LIFETIMES_DAYS)[number];
const MAX_NAME_LENGTH = 100;

export type KeyAdminErrorCode =
  | 'invalid_input'
  | 'workspace_not_found'
  | 'creator_not_found'
  | 'creator_not_allowed'
  | 'brand_not_found'
  | 'analysis_not_found'
  | 'key_limit_reached'
  | 'key_not_found'
  | 'already_revoked';

/** A refusal the caller can show as is: the message names what was wrong and what to do. */
export class KeyAdminError extends Error {
  constructor(
    readonly code: KeyAdminErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'KeyAdminError';
  }
}

export interface CreateKeyInput {
  /** Workspace id or slug. */
  workspace: string;
  /** User id or e-mail. */
  creator: string;
  name: string;
  scope: KeyScope;
  /** Brand id or name, required when scope is 'brand'. */
  brand?: string;
  /** Analysis id or slug, required when scope is 'analysis'. */
  analysis?: string;
  expiresInDays?: number;
}

export interface CreatedKey {
  id: string;
  /** The only time the secret exists outside the caller's hands: it is not stored. */
  secret: string;
  prefix: string;
  expires_at: string;
  /** False when the workspace plan excludes the API: the key exists but every call gets 403 plan_required. */
  plan_allows_api: boolean;
}

/** What key_status (shared/admin/sql/functions/caller.sql) answers: the caller statement's rule. */
export type KeyStatus = 'active' | 'revoked' | 'expired' | 'creator_inactive';

export interface KeyListing {
  id: string;
  name: string;
  prefix: string;
  scope: KeyScope;
  /** Brand name for brand-scoped keys. */
  brand: string | null;
  /** Analysis slug for analysis-scoped keys. */
  analysis: string | null;
  created_by: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  status: KeyStatus;
}

function iso(v: unknown): string {
  return (v instanceof Date ? v : new Date(String(v))).toISOString();
}

function isoOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : iso(v);
}

// A single connection (pg Client, PGlite) cannot hold two transactions at once, so transactions issued
// through this module on the same connection object wait for each other; across connections the
// workspace row lock does the work.
const queues = new WeakMap<object, Promise<unknown>>();

async function runTransaction<T>(tx: Queryable, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  await tx.query('BEGIN');
  try {
    const result = await fn(tx);
    await tx.query('COMMIT');
    return result;
  } catch (err) {
    await tx.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Runs fn inside one transaction on one connection, whether db is a pool or a single connection. */
export async function withTransaction<T>(db: Queryable, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  if (db instanceof pg.Pool) {
    const client = await db.connect();
    try {
      return await runTransaction(client, fn);
    } finally {
      client.release();
    }
  }
  const previous = queues.get(db) ?? Promise.resolve();
  const run = previous.then(
    () => runTransaction(db, fn),
    () => runTransaction(db, fn),
  );
  queues.set(
    db,
    run.catch(() => undefined),
  );
  return run;
}

interface WorkspaceRow {
  id: string;
  slug: string;
  api_access: boolean;
}

async function findWorkspace(db: Queryable, ref: string, lock: boolean): Promise<WorkspaceRow> {
  const where = isUuid(ref) ? 'w.id = $1::uuid' : 'w.slug = $1';
  const { rows } = await db.query<WorkspaceRow>(
    `SELECT w.id, w.slug, p.api_access FROM workspaces w JOIN plans p ON p.key = w.plan_key
     WHERE ${where}${lock ? ' FOR UPDATE OF w' : ''}`,
    [ref],
  );
  const ws = rows[0];
  if (!ws) throw new KeyAdminError('workspace_not_found', `workspace "${ref}" does not exist (give its slug or id)`);
  return ws;
}

function validateCreate(input: CreateKeyInput): { name: string; days: KeyLifetimeDays } {
  const name = (input.name ?? '').trim();
  if (!name) throw new KeyAdminError('invalid_input', 'a key needs a name');
  if (name.length > MAX_NAME_LENGTH) throw new KeyAdminError('invalid_input', `a key name has at most ${MAX_NAME_LENGTH} characters`);
  if (!(KEY_SCOPES as readonly string[]).includes(input.scope)) {
    throw new KeyAdminError('invalid_input', `scope must be one of ${KEY_SCOPES.join(', ')}`);
  }
  if (input.scope === 'brand' && !input.brand) throw new KeyAdminError('invalid_input', 'scope brand needs a brand');
  if (input.scope !== 'brand' && input.brand) throw new KeyAdminError('invalid_input', 'a brand is only given with scope brand');
  if (input.scope === 'analysis' && !input.analysis) throw new KeyAdminError('invalid_input', 'scope analysis needs an analysis');
  if (input.scope !== 'analysis' && input.analysis)
    throw new KeyAdminError('invalid_input', 'an analysis is only given with scope analysis');
  const days = input.expiresInDays ?? 365;
  if (!(KEY_LIFETIMES_DAYS as readonly number[]).includes(days)) {
    throw new KeyAdminError('invalid_input', `a key lives ${KEY_LIFETIMES_DAYS.join(' or ')} days`);
  }
  return { name, days: days as KeyLifetimeDays };
}

interface CreatorRow {
  id: string;
  email: string;
  role: string | null;
  brand_ids: string[] | null;
  left_at: unknown;
  suspended_at: unknown;
  member: boolean;
}

async function checkCreator(db: Queryable, ref: string, ws: WorkspaceRow): Promise<string> {
  const where = isUuid(ref) ? 'u.id = $1::uuid' : 'lower(u.email) = lower($1)';
  const { rows } = await db.query<CreatorRow>(
    `SELECT u.id, u.email, m.role, m.brand_ids, m.left_at, m.suspended_at, m.user_id IS NOT NULL AS member
     FROM users u LEFT JOIN members m ON m.user_id = u.id AND m.workspace_id = $2
     WHERE ${where}`,
    [ref, ws.id],
  );
  const c = rows[0];
  if (!c) throw new KeyAdminError('creator_not_found', `no user "${ref}" (give an e-mail or a user id)`);
  const who = `${c.email} in workspace ${ws.slug}`;
  if (!c.member) throw new KeyAdminError('creator_not_allowed', `${c.email} is not a member of workspace ${ws.slug}`);
  if (c.left_at !== null) throw new KeyAdminError('creator_not_allowed', `${who} has left the workspace`);
  if (c.suspended_at !== null) throw new KeyAdminError('creator_not_allowed', `${who} is suspended`);
  if (c.role !== 'owner' && c.role !== 'admin') {
    throw new KeyAdminError('creator_not_allowed', `${who} is a ${c.role}; only an owner or an administrator may create keys`);
  }
  if (c.role === 'admin' && c.brand_ids !== null) {
    throw new KeyAdminError(
      'creator_not_allowed',
      `${who} is an administrator restricted to some brands; such administrators may not create keys`,
    );
  }
  return c.id;
}

async function findBrand(db: Queryable, ref: string, ws: WorkspaceRow): Promise<string> {
  const where = isUuid(ref) ? 'id = $1::uuid' : 'name = $1';
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM brands WHERE ${where} AND workspace_id = $2`, [ref, ws.id]);
  const brand = rows[0];
  if (!brand) throw new KeyAdminError('brand_not_found', `brand "${ref}" is not a brand of workspace ${ws.slug}`);
  return brand.id;
}

async function findAnalysis(db: Queryable, ref: string, ws: WorkspaceRow): Promise<string> {
  const where = isUuid(ref) ? 'id = $1::uuid' : 'slug = $1';
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM analyses WHERE ${where} AND workspace_id = $2`, [ref, ws.id]);
  const analysis = rows[0];
  if (!analysis) throw new KeyAdminError('analysis_not_found', `analysis "${ref}" is not an analysis of workspace ${ws.slug}`);
  return analysis.id;
}

/**
 * Creates a key and returns its secret, which is never stored. Refuses an eleventh active key (active:
 * neither revoked nor expired), a creator who is not an owner or unrestricted administrator of the
 * workspace today, and a brand or analysis of another workspace.
 */
export async function createKey(
  db: Queryable,
  input: CreateKeyInput,
  deps: { random?: (max: number) => number } = {},
): Promise<CreatedKey> {
  const { name, days } = validateCreate(input);
  return withTransaction(db, async (tx) => {
    // The workspace row lock serialises concurrent creations, so the count below cannot go stale.
    const ws = await findWorkspace(tx, input.workspace, true);
    const creatorId = await checkCreator(tx, input.creator, ws);
    const brandId = input.scope === 'brand' ? await findBrand(tx, input.brand as string, ws) : null;
    const analysisId = input.scope === 'analysis' ? await findAnalysis(tx, input.analysis as string, ws) : null;

    const { rows: counted } = await tx.query<{ n: number }>('SELECT active_key_count($1) AS n', [ws.id]);
    if ((counted[0]?.n ?? 0) >= MAX_ACTIVE_KEYS) {
      throw new KeyAdminError(
        'key_limit_reached',
        `workspace ${ws.slug} already has ${MAX_ACTIVE_KEYS} active keys; revoke one before creating another`,
      );
    }

    const secret = newSecret(deps.random);
    const id = randomUUID();
    const { rows } = await tx.query<{ expires_at: unknown }>(
      `INSERT INTO api_keys (id, workspace_id, name, prefix, fingerprint, scope, brand_id, analysis_id, created_by, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now(), now() + make_interval(days => $10::int))
       RETURNING expires_at`,
      [id, ws.id, name, visiblePrefix(secret), fingerprint(secret), input.scope, brandId, analysisId, creatorId, days],
    );
    return { id, secret, prefix: visiblePrefix(secret), expires_at: iso(rows[0]?.expires_at), plan_allows_api: ws.api_access };
  });
}

/** Every key of the workspace, newest first; the secret is gone and the fingerprint is not shown. */
export async function listKeys(db: Queryable, workspace: string): Promise<KeyListing[]> {
  const ws = await findWorkspace(db, workspace, false);
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT k.id, k.name, k.prefix, k.scope, b.name AS brand, a.slug AS analysis, u.email AS created_by,
            k.created_at, k.expires_at, k.revoked_at, k.last_used_at,
            key_status(k, m) AS status
     FROM api_keys k
     JOIN users u ON u.id = k.created_by
     LEFT JOIN members m ON m.workspace_id = k.workspace_id AND m.user_id = k.created_by
     LEFT JOIN brands b ON b.id = k.brand_id
     LEFT JOIN analyses a ON a.id = k.analysis_id
     WHERE k.workspace_id = $1
     ORDER BY k.created_at DESC, k.id`,
    [ws.id],
  );
  return rows.map((r) => ({
    id: String(r.id),
    name: String(r.name),
    prefix: String(r.prefix),
    scope: r.scope as KeyScope,
    brand: (r.brand as string | null) ?? null,
    analysis: (r.analysis as string | null) ?? null,
    created_by: String(r.created_by),
    created_at: iso(r.created_at),
    expires_at: iso(r.expires_at),
    revoked_at: isoOrNull(r.revoked_at),
    last_used_at: isoOrNull(r.last_used_at),
    status: r.status as KeyStatus,
  }));
}

/** Revokes a key for good; the next call made with it gets 401 key_revoked. */
export async function revokeKey(db: Queryable, keyId: string): Promise<{ id: string; revoked_at: string }> {
  if (!isUuid(keyId)) throw new KeyAdminError('invalid_input', `"${keyId}" is not a key id (a UUID, as shown by list)`);
  const { rows } = await db.query<{ id: string; revoked_at: unknown }>(
    'UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id, revoked_at',
    [keyId],
  );
  const revoked = rows[0];
  if (revoked) return { id: revoked.id, revoked_at: iso(revoked.revoked_at) };
  const { rows: existing } = await db.query<{ revoked_at: unknown }>('SELECT revoked_at FROM api_keys WHERE id = $1', [keyId]);
  const key = existing[0];
  if (!key) throw new KeyAdminError('key_not_found', `no key ${keyId}`);
  throw new KeyAdminError('already_revoked', `key ${keyId} was already revoked at ${iso(key.revoked_at)}`);
}
