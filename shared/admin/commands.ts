import { randomUUID } from 'node:crypto';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { isUuid } from '../formats.js';
import type { Queryable } from '../store/queryable.js';
import { seedDemo } from './demo.js';
import { createKey, KEY_SCOPES, KeyAdminError, type KeyScope, listKeys, revokeKey } from './keys.js';
import { describeVerify, verifyAggregates } from './verify-aggregates.js';

/**
 * Administration of a standalone stage: the rows the product would otherwise write before anyone can call
 * the API (plans, workspaces, users, brands, memberships) and the keys themselves. One command table,
 * parsed from the same argv wherever it runs: `npm run admin -- ...` on an owner connection
 * (DATABASE_URL, directly or through a tunnel), or the migration function's `{"admin": [...]}` payload on a
 * deployed stage (bin/admin.ts sends it when ADMIN_FUNCTION is set). Runs with an owner role, never as
 * the service's read-only role. What the product's collection pipeline writes is in docs/data-contract.md.
 */

export type AdminErrorCode =
  | 'invalid_input'
  | 'plan_not_found'
  | 'workspace_exists'
  | 'workspace_not_found'
  | 'user_exists'
  | 'user_not_found'
  | 'brand_exists'
  | 'brand_not_found'
  | 'member_not_found'
  | 'store_not_empty';

/** A refusal the caller can act on; the message names what was wrong. */
export class AdminError extends Error {
  constructor(
    readonly code: AdminErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AdminError';
  }
}

/** Bad command line: nothing was sent to the database. */
export class AdminUsageError extends Error {
  override name = 'AdminUsageError';
}

export interface AdminOutcome {
  /** Machine-readable result (`--json`, and the function's response). */
  result: unknown;
  /** What a person reads. */
  text: string;
  /**
   * The exit status of a command that ran but found something to act on (ADMIN_EXIT); absent, 0. A
   * scheduled check then alarms on the status alone, without parsing the text.
   */
  exitCode?: number;
}

/** The exit statuses of `npm run admin`, one place for the CLI, its help and the migration function's reply. */
export const ADMIN_EXIT = { done: 0, failed: 1, usage: 2, drift: 3 } as const;

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

interface Command {
  name: string;
  usage: string;
  options: Options;
  /** Checks made while parsing, before any connection. */
  check?(v: Values): void;
  run(db: Queryable, v: Values): Promise<AdminOutcome>;
}

const str = { type: 'string' } as const;

const SLUG_RE = /^[a-z0-9][a-z0-9-]{1,62}$/;
const PLAN_KEY_RE = /^[a-z0-9][a-z0-9_-]{0,49}$/;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DOMAIN_RE = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const ROLES = ['owner', 'admin', 'member'] as const;

function need(v: Values, flag: string): string {
  const value = v[flag];
  if (typeof value !== 'string' || value.trim() === '') throw new AdminUsageError(`--${flag} is required`);
  return value.trim();
}

/** A name as the store keeps it: in Unicode NFC, which brand names must be in (migration 026). */
function text(value: string, what: string, max = 100): string {
  const name = value.normalize('NFC');
  if (name.length > max) throw new AdminError('invalid_input', `${what} has at most ${max} characters`);
  return name;
}

function bool(value: string, flag: string): boolean {
  if (value === 'true' || value === 'yes') return true;
  if (value === 'false' || value === 'no') return false;
  throw new AdminUsageError(`--${flag} must be true or false`);
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const iso = (v: unknown): string => (v instanceof Date ? v : new Date(String(v))).toISOString();

async function workspaceId(db: Queryable, ref: string): Promise<{ id: string; slug: string }> {
  const where = isUuid(ref) ? 'id = $1::uuid' : 'slug = $1';
  const { rows } = await db.query<{ id: string; slug: string }>(`SELECT id, slug FROM workspaces WHERE ${where}`, [ref]);
  if (!rows[0]) throw new AdminError('workspace_not_found', `workspace "${ref}" does not exist (give its slug or id)`);
  return rows[0];
}

async function userId(db: Queryable, ref: string): Promise<{ id: string; email: string }> {
  const where = isUuid(ref) ? 'id = $1::uuid' : 'lower(email) = lower($1)';
  const { rows } = await db.query<{ id: string; email: string }>(`SELECT id, email FROM users WHERE ${where}`, [ref]);
  if (!rows[0]) throw new AdminError('user_not_found', `no user "${ref}" (create it with: user create --email ... --name ...)`);
  return rows[0];
}

async function planExists(db: Queryable, key: string): Promise<void> {
  const { rows } = await db.query('SELECT 1 FROM plans WHERE key = $1', [key]);
  if (rows.length === 0) throw new AdminError('plan_not_found', `plan "${key}" does not exist (create it with: plan put --key ${key} ...)`);
}

/** One command run as a step of another, its refusal naming the step. */
async function step(db: Queryable, name: string, values: Values): Promise<AdminOutcome> {
  try {
    return await runAdminCommand(db, { command: name, values });
  } catch (err) {
    if (err instanceof AdminError) throw new AdminError(err.code, `${name}: ${err.message}`);
    if (err instanceof KeyAdminError) throw new KeyAdminError(err.code, `${name}: ${err.message}`);
    throw err;
  }
}

const COMMANDS: Command[] = [
  {
    name: 'plan put',
    usage: 'plan put --key KEY --label LABEL --api true|false --per-minute N     (creates or updates)',
    options: { key: str, label: str, api: str, 'per-minute': str },
    async run(db, v) {
      const key = need(v, 'key');
      if (!PLAN_KEY_RE.test(key))
        throw new AdminError('invalid_input', '--key is lower-case letters, digits, - and _ (the technical plan identifier)');
      const label = text(need(v, 'label'), 'a plan label');
      const api = bool(need(v, 'api'), 'api');
      const perMinute = Number(need(v, 'per-minute'));
      if (!Number.isInteger(perMinute) || perMinute < 0 || perMinute > 1_000_000) {
        throw new AdminError('invalid_input', '--per-minute is a whole number of calls per minute, 0 to 1000000');
      }
      const { rows } = await db.query<{ created: boolean }>(
        `INSERT INTO plans (key, label, api_access, calls_per_minute) VALUES ($1, $2, $3, $4)
         ON CONFLICT (key) DO UPDATE SET label = excluded.label, api_access = excluded.api_access, calls_per_minute = excluded.calls_per_minute
         RETURNING (xmax = 0) AS created`,
        [key, label, api, perMinute],
      );
      const result = { key, label, api_access: api, calls_per_minute: perMinute, created: rows[0]?.created ?? false };
      return {
        result,
        text: `${result.created ? 'Created' : 'Updated'} plan ${key} (${label}): API ${api ? 'included' : 'excluded'}, ${perMinute} calls per minute.`,
      };
    },
  },
  {
    name: 'plan list',
    usage: 'plan list',
    options: {},
    async run(db) {
      const { rows } = await db.query<{ key: string; label: string; api_access: boolean; calls_per_minute: number }>(
        'SELECT key, label, api_access, calls_per_minute FROM plans ORDER BY key',
      );
      if (rows.length === 0) return { result: rows, text: 'No plans.' };
      return {
        result: rows,
        text: table([
          ['KEY', 'LABEL', 'API', 'PER MINUTE'],
          ...rows.map((r) => [r.key, r.label, r.api_access ? 'yes' : 'no', String(r.calls_per_minute)]),
        ]),
      };
    },
  },
  {
    name: 'workspace create',
    usage: 'workspace create --slug SLUG --name NAME --plan PLAN_KEY',
    options: { slug: str, name: str, plan: str },
    async run(db, v) {
      const slug = need(v, 'slug');
      if (!SLUG_RE.test(slug)) throw new AdminError('invalid_input', '--slug is 2 to 63 lower-case letters, digits and dashes');
      const name = text(need(v, 'name'), 'a workspace name');
      const plan = need(v, 'plan');
      await planExists(db, plan);
      const id = randomUUID();
      const { rows } = await db.query<{ id: string }>(
        'INSERT INTO workspaces (id, name, slug, plan_key) VALUES ($1, $2, $3, $4) ON CONFLICT (slug) DO NOTHING RETURNING id',
        [id, name, slug, plan],
      );
      if (!rows[0]) throw new AdminError('workspace_exists', `workspace "${slug}" already exists`);
      return { result: { id, slug, name, plan }, text: `Created workspace ${slug} (${name}) on plan ${plan}: ${id}` };
    },
  },
  {
    name: 'workspace setup',
    usage:
      'workspace setup --slug SLUG --name NAME --plan PLAN_KEY --owner EMAIL [--owner-name NAME]   (a workspace, its owner and a workspace key in one command)',
    options: { slug: str, name: str, plan: str, owner: str, 'owner-name': str },
    check(v) {
      for (const flag of ['slug', 'name', 'plan', 'owner']) need(v, flag);
    },
    // The four commands a new workspace takes, in their order, each as it runs alone: a refusal stops the
    // rest, and says which step it was (what came before it stays; the rest is the same commands by hand).
    async run(db, v) {
      const owner = need(v, 'owner');
      const workspace = await step(db, 'workspace create', { slug: v.slug, name: v.name, plan: v.plan });
      const user = await step(db, 'user create', {
        email: owner,
        name: typeof v['owner-name'] === 'string' ? v['owner-name'] : owner,
      }).catch((err: unknown) => {
        if (!(err instanceof AdminError && err.code === 'user_exists')) throw err;
        return { result: { email: owner, existing: true }, text: `Using the existing user ${owner}.` };
      });
      const member = await step(db, 'member add', { workspace: v.slug, user: owner, role: 'owner' });
      const key = await step(db, 'key create', { workspace: v.slug, creator: owner, name: 'setup', scope: 'workspace' });
      return {
        result: { workspace: workspace.result, user: user.result, member: member.result, key: key.result },
        text: [workspace, user, member, key].map((o) => o.text).join('\n'),
      };
    },
  },
  {
    name: 'workspace set-plan',
    usage: 'workspace set-plan --workspace SLUG|ID --plan PLAN_KEY',
    options: { workspace: str, plan: str },
    async run(db, v) {
      const ws = await workspaceId(db, need(v, 'workspace'));
      const plan = need(v, 'plan');
      await planExists(db, plan);
      await db.query('UPDATE workspaces SET plan_key = $2 WHERE id = $1', [ws.id, plan]);
      return { result: { id: ws.id, slug: ws.slug, plan }, text: `Workspace ${ws.slug} is now on plan ${plan}.` };
    },
  },
  {
    name: 'workspace list',
    usage: 'workspace list',
    options: {},
    async run(db) {
      const { rows } = await db.query<{ id: string; slug: string; name: string; plan: string; members: number; active_keys: number }>(
        `SELECT w.id, w.slug, w.name, w.plan_key AS plan,
                (SELECT count(*)::int FROM members m WHERE m.workspace_id = w.id AND m.left_at IS NULL) AS members,
                active_key_count(w.id) AS active_keys
           FROM workspaces w ORDER BY w.slug`,
      );
      if (rows.length === 0) return { result: rows, text: 'No workspaces.' };
      return {
        result: rows,
        text: table([
          ['SLUG', 'NAME', 'PLAN', 'MEMBERS', 'ACTIVE KEYS', 'ID'],
          ...rows.map((r) => [r.slug, r.name, r.plan, String(r.members), String(r.active_keys), r.id]),
        ]),
      };
    },
  },
  {
    name: 'user create',
    usage: 'user create --email EMAIL --name NAME',
    options: { email: str, name: str },
    async run(db, v) {
      const email = need(v, 'email');
      if (!EMAIL_RE.test(email) || email.length > 254) throw new AdminError('invalid_input', '--email is not an e-mail address');
      const name = text(need(v, 'name'), 'a user name');
      const { rows: existing } = await db.query('SELECT 1 FROM users WHERE lower(email) = lower($1)', [email]);
      if (existing.length > 0) throw new AdminError('user_exists', `a user with e-mail ${email} already exists`);
      const id = randomUUID();
      await db.query('INSERT INTO users (id, email, name) VALUES ($1, $2, $3)', [id, email, name]);
      return { result: { id, email, name }, text: `Created user ${email} (${name}): ${id}` };
    },
  },
  {
    name: 'brand create',
    usage: 'brand create --workspace SLUG|ID --name NAME [--domain DOMAIN]',
    options: { workspace: str, name: str, domain: str },
    async run(db, v) {
      const ws = await workspaceId(db, need(v, 'workspace'));
      const name = text(need(v, 'name'), 'a brand name');
      const domain = typeof v.domain === 'string' ? v.domain.trim().toLowerCase() : null;
      if (domain !== null && !DOMAIN_RE.test(domain)) throw new AdminError('invalid_input', '--domain is a host name such as acme.com');
      const id = randomUUID();
      const { rows } = await db.query<{ id: string }>(
        'INSERT INTO brands (id, workspace_id, name, domain) VALUES ($1, $2, $3, $4) ON CONFLICT (workspace_id, name) DO NOTHING RETURNING id',
        [id, ws.id, name, domain],
      );
      if (!rows[0]) throw new AdminError('brand_exists', `workspace ${ws.slug} already has a brand "${name}"`);
      return { result: { id, workspace: ws.slug, name, domain }, text: `Created brand ${name} in workspace ${ws.slug}: ${id}` };
    },
  },
  {
    name: 'member add',
    usage:
      'member add --workspace SLUG|ID --user EMAIL|ID --role owner|admin|member [--brands NAME,NAME]   (adds, re-invites or changes the role)',
    options: { workspace: str, user: str, role: str, brands: str },
    async run(db, v) {
      const ws = await workspaceId(db, need(v, 'workspace'));
      const user = await userId(db, need(v, 'user'));
      const role = need(v, 'role');
      if (!(ROLES as readonly string[]).includes(role)) throw new AdminError('invalid_input', `--role must be one of ${ROLES.join(', ')}`);
      let brandIds: string[] | null = null;
      if (typeof v.brands === 'string') {
        if (role === 'owner')
          throw new AdminError('invalid_input', 'an owner sees every brand; --brands is for administrators and members');
        const names = v.brands
          .split(',')
          .map((b) => b.trim().normalize('NFC'))
          .filter(Boolean);
        if (names.length === 0) throw new AdminError('invalid_input', '--brands names at least one brand');
        const { rows } = await db.query<{ id: string; name: string }>(
          'SELECT id, name FROM brands WHERE workspace_id = $1 AND (name = ANY($2::text[]) OR id::text = ANY($2::text[]))',
          [ws.id, names],
        );
        const missing = names.filter((n) => !rows.some((r) => r.name === n || r.id === n));
        if (missing.length > 0) throw new AdminError('brand_not_found', `not a brand of workspace ${ws.slug}: ${missing.join(', ')}`);
        brandIds = rows.map((r) => r.id);
      }
      // A member who had left is invited again: joined_at restarts, so keys they created before leaving stay
      // dead (docs/contract.md#authentication point 10: a key lives as long as its creator's access). A
      // suspension is left as it is.
      const { rows } = await db.query<{ inserted: boolean; suspended: boolean }>(
        `INSERT INTO members AS m (workspace_id, user_id, role, brand_ids, joined_at) VALUES ($1, $2, $3, $4, now())
         ON CONFLICT (workspace_id, user_id) DO UPDATE SET
           role = excluded.role, brand_ids = excluded.brand_ids,
           joined_at = CASE WHEN m.left_at IS NOT NULL THEN now() ELSE m.joined_at END,
           left_at = NULL
         RETURNING (xmax = 0) AS inserted, suspended_at IS NOT NULL AS suspended`,
        [ws.id, user.id, role, brandIds],
      );
      const r = rows[0] ?? { inserted: false, suspended: false };
      const scope = brandIds ? `brands ${String(v.brands)}` : 'every brand';
      const result = { workspace: ws.slug, user: user.email, role, brands: brandIds, created: r.inserted, suspended: r.suspended };
      const lines = [`${r.inserted ? 'Added' : 'Updated'} ${user.email} in workspace ${ws.slug} as ${role} (${scope}).`];
      if (r.suspended) lines.push('Note: this membership is suspended; its keys do not answer until the product lifts the suspension.');
      return { result, text: lines.join('\n') };
    },
  },
  {
    name: 'member remove',
    usage: 'member remove --workspace SLUG|ID --user EMAIL|ID   (the member leaves; their keys stop answering)',
    options: { workspace: str, user: str },
    async run(db, v) {
      const ws = await workspaceId(db, need(v, 'workspace'));
      const user = await userId(db, need(v, 'user'));
      const { rows } = await db.query<{ left_at: unknown }>(
        'UPDATE members SET left_at = now() WHERE workspace_id = $1 AND user_id = $2 AND left_at IS NULL RETURNING left_at',
        [ws.id, user.id],
      );
      if (!rows[0]) throw new AdminError('member_not_found', `${user.email} is not a current member of workspace ${ws.slug}`);
      const leftAt = iso(rows[0].left_at);
      return {
        result: { workspace: ws.slug, user: user.email, left_at: leftAt },
        text: `${user.email} left workspace ${ws.slug} at ${leftAt}; keys they created now get 401 key_revoked.`,
      };
    },
  },
  {
    name: 'member list',
    usage: 'member list --workspace SLUG|ID',
    options: { workspace: str },
    async run(db, v) {
      const ws = await workspaceId(db, need(v, 'workspace'));
      const { rows } = await db.query<{ email: string; role: string; brands: string | null; joined_at: unknown; status: string }>(
        `SELECT u.email, m.role,
                (SELECT string_agg(b.name, ',' ORDER BY b.name) FROM brands b WHERE b.id = ANY(m.brand_ids)) AS brands,
                m.joined_at,
                CASE WHEN m.left_at IS NOT NULL THEN 'left' WHEN m.suspended_at IS NOT NULL THEN 'suspended' ELSE 'active' END AS status
           FROM members m JOIN users u ON u.id = m.user_id
          WHERE m.workspace_id = $1 ORDER BY lower(u.email)`,
        [ws.id],
      );
      const result = rows.map((r) => ({ ...r, joined_at: iso(r.joined_at) }));
      if (result.length === 0) return { result, text: `No members in workspace ${ws.slug}.` };
      return {
        result,
        text: table([
          ['EMAIL', 'ROLE', 'BRANDS', 'STATUS', 'JOINED'],
          ...result.map((r) => [r.email, r.role, r.brands ?? '(all)', r.status, r.joined_at.slice(0, 10)]),
        ]),
      };
    },
  },
  {
    name: 'key create',
    usage:
      'key create --workspace SLUG|ID --creator EMAIL|USER_ID --name NAME --scope workspace|brand|analysis [--brand NAME|ID] [--analysis SLUG|ID] [--expires 90|365]',
    options: { workspace: str, creator: str, name: str, scope: str, brand: str, analysis: str, expires: str },
    check(v) {
      for (const flag of ['workspace', 'creator', 'name']) need(v, flag);
      if (!(KEY_SCOPES as readonly string[]).includes(need(v, 'scope')))
        throw new AdminUsageError(`--scope must be one of ${KEY_SCOPES.join(', ')}`);
      if (v.expires !== undefined && v.expires !== '90' && v.expires !== '365')
        throw new AdminUsageError('--expires must be 90 or 365 (days)');
    },
    async run(db, v) {
      const scope = need(v, 'scope');
      const expires = v.expires === undefined ? 365 : Number(v.expires);
      const input = {
        workspace: need(v, 'workspace'),
        creator: need(v, 'creator'),
        name: need(v, 'name'),
        scope: scope as KeyScope,
        ...(typeof v.brand === 'string' ? { brand: v.brand } : {}),
        ...(typeof v.analysis === 'string' ? { analysis: v.analysis } : {}),
        expiresInDays: expires,
      };
      const key = await createKey(db, input);
      const lines = [`Created key ${key.id} "${input.name}" (scope ${scope}) in workspace ${input.workspace}; expires ${key.expires_at}.`];
      if (!key.plan_allows_api)
        lines.push('Warning: the plan of this workspace excludes the API; calls with this key get 403 plan_required.');
      lines.push(
        '',
        'Secret, shown this once and NOT stored anywhere. Copy it now; a lost secret cannot be recovered, only revoked and replaced:',
        '',
        `  ${key.secret}`,
        '',
      );
      return { result: key, text: lines.join('\n') };
    },
  },
  {
    name: 'key list',
    usage: 'key list --workspace SLUG|ID',
    options: { workspace: str },
    async run(db, v) {
      const workspace = need(v, 'workspace');
      const keys = await listKeys(db, workspace);
      if (keys.length === 0) return { result: keys, text: `No keys in workspace ${workspace}.` };
      const header = ['ID', 'NAME', 'PREFIX', 'SCOPE', 'TARGET', 'STATUS', 'CREATED BY', 'CREATED', 'EXPIRES'];
      const lines = keys.map((k) => [
        k.id,
        k.name,
        `${k.prefix}…`,
        k.scope,
        k.brand ?? k.analysis ?? '-',
        k.status,
        k.created_by,
        k.created_at.slice(0, 10),
        k.expires_at.slice(0, 10),
      ]);
      return { result: keys, text: table([header, ...lines]) };
    },
  },
  {
    name: 'key revoke',
    usage: 'key revoke --id KEY_ID',
    options: { id: str },
    async run(db, v) {
      const revoked = await revokeKey(db, need(v, 'id'));
      return { result: revoked, text: `Revoked key ${revoked.id} at ${revoked.revoked_at}. Calls made with it now get 401 key_revoked.` };
    },
  },
  {
    name: 'demo load',
    usage: 'demo load   (an empty, migrated store only: the demo workspaces, people and measurements, no keys)',
    options: {},
    async run(db) {
      const { rows } = await db.query<{ n: number }>('SELECT (SELECT count(*) FROM workspaces) + (SELECT count(*) FROM plans) AS n');
      if (Number(rows[0]?.n ?? 0) > 0) {
        throw new AdminError('store_not_empty', 'the demo goes into an empty store only; this one already holds plans or workspaces');
      }
      // No keys: the demo's keys derive from a seed published in this repository, so anyone could
      // compute them. Keys for a deployed stage come from `key create`, with secrets nobody else knows.
      const manifest = await seedDemo(db, { keys: false });
      const result = {
        workspaces: Object.keys(manifest.workspaces),
        analyses: manifest.analyses,
        owner: 'owner@acme.test',
        endDate: manifest.endDate,
      };
      return {
        result,
        text: [
          `Loaded the demo (history ending ${manifest.endDate}): workspaces ${result.workspaces.join(', ')}.`,
          'Create a key to try it:',
          '  key create --workspace acme --creator owner@acme.test --name demo --scope workspace',
        ].join('\n'),
      };
    },
  },
  {
    name: 'verify-aggregates',
    usage:
      'verify-aggregates [--repair]   (every aggregate the store keeps, against its recomputation from the rows; --repair sets each drifted row)',
    options: { repair: { type: 'boolean' } },
    async run(db, v) {
      const result = await verifyAggregates(db, { repair: v.repair === true });
      // Drift left in place is a finding; repaired, the command did what it was asked.
      const exitCode = result.drift.length > 0 && !result.repaired ? ADMIN_EXIT.drift : ADMIN_EXIT.done;
      return { result, text: describeVerify(result), exitCode };
    },
  },
];

export const ADMIN_USAGE = `Administer a stage's store: plans, workspaces, users, brands, memberships, keys (an owner role, never the service's).

${COMMANDS.map((c) => `  ${c.usage}`).join('\n')}

Every command takes --json for machine-readable output.`;

export interface ParsedAdminCommand {
  command: string;
  values: Values;
  json: boolean;
  /** The argv without --json: what the migration function is sent. */
  argv: string[];
}

/** Parses `<noun> <verb> --flag value...`; throws AdminUsageError on anything it does not know. */
export function parseAdminArgs(argv: string[]): ParsedAdminCommand {
  const words: string[] = [];
  for (const a of argv) {
    if (a.startsWith('-')) break;
    words.push(a);
  }
  const name = words.slice(0, 2).join(' ');
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    throw new AdminUsageError(words.length === 0 ? 'a command is required' : `unknown command "${words.join(' ')}"`);
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv.slice(name.split(' ').length),
      allowPositionals: false,
      strict: true,
      options: { ...command.options, json: { type: 'boolean' } },
    });
  } catch (err) {
    throw new AdminUsageError(`${name}: ${(err as Error).message}`);
  }
  const { json, ...values } = parsed.values as Values;
  command.check?.(values);
  return { command: name, values, json: json === true, argv: argv.filter((a) => a !== '--json') };
}

/** Runs one parsed command on an owner connection (pg Client, PGlite). */
export async function runAdminCommand(db: Queryable, parsed: Pick<ParsedAdminCommand, 'command' | 'values'>): Promise<AdminOutcome> {
  const command = COMMANDS.find((c) => c.name === parsed.command);
  if (!command) throw new AdminUsageError(`unknown command "${parsed.command}"`);
  return command.run(db, parsed.values);
}

/** A refusal to report as such (exit 1, `{ok: false}`), as opposed to a fault. */
export function refusalOf(err: unknown): { code: string; message: string } | undefined {
  if (err instanceof AdminError || err instanceof KeyAdminError) return { code: err.code, message: err.message };
  if (err instanceof AdminUsageError) return { code: 'usage', message: err.message };
  return undefined;
}
