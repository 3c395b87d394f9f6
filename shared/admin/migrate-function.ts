import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import pg from 'pg';
import type { MigrateConfig } from '../config/migrate.js';
import { logger } from '../log.js';
import { AdminUsageError, parseAdminArgs, refusalOf, runAdminCommand } from './commands.js';
import { migrate } from './migrate.js';

/**
 * One-shot schema migration for the measurement store, run by a CloudFormation custom resource on every
 * deploy whose migrations changed (or invoked by hand with an empty payload).
 *
 * It logs in as the cluster owner with the admin secret (read at run time, never placed in the
 * environment), applies the pending migrations and the read functions, then lets geo_reader log in with
 * IAM tokens. The store's SQL (shared/admin/sql) is copied next to the bundle at build time;
 * shared/admin/migrate.ts finds it there.
 *
 * A direct invocation with an `admin` payload runs one administration command, the same argv as
 * `npm run admin` (shared/admin/commands.ts), for operators with no network path to the isolated database;
 * bin/admin.ts sends it when ADMIN_FUNCTION is set:
 *   {"admin": ["workspace", "create", "--slug", "acme", "--name", "Acme", "--plan", "growth"]}
 * It answers {"ok": true, "result", "text"} or {"ok": false, "error": {"code", "message"}}. A created key's
 * secret is in that response only; it is never logged.
 */

interface CustomResourceEvent {
  RequestType?: 'Create' | 'Update' | 'Delete';
  PhysicalResourceId?: string;
}

/** The part of Lambda's context the migrate run reads: how long the invocation has left. */
interface LambdaContext {
  getRemainingTimeInMillis(): number;
}

interface AdminSecret {
  username: string;
  password: string;
}

const PHYSICAL_ID = 'measurement-store-schema';
/** Long on purpose: a paused Aurora cluster takes ~20 s to resume, and this runs once per deploy. */
const CONNECT_TIMEOUT_MS = 60_000;
/** Keep trying to log in for this long: well inside the function's 5-minute timeout. */
const CONNECT_DEADLINE_MS = 240_000;
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 15_000;
/** What a migrate run leaves itself before the function's timeout: to roll back, log and answer CloudFormation. */
const DEADLINE_MARGIN_MS = 15_000;

/** What the function is built from, once per execution environment (the entry file makes them at module scope). */
export interface MigrateDeps {
  config: MigrateConfig;
  secrets: SecretsManagerClient;
}

async function adminCredentials({ config, secrets }: MigrateDeps): Promise<AdminSecret> {
  const out = await secrets.send(new GetSecretValueCommand({ SecretId: config.adminSecretArn }));
  const parsed = JSON.parse(out.SecretString ?? '{}') as Partial<AdminSecret>;
  if (!parsed.username || !parsed.password) throw new Error('admin secret lacks username or password');
  return { username: parsed.username, password: parsed.password };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Logs in as the owner, retrying with backoff until the deadline: the cluster may be resuming, and the
 * admin secret may be rotating. The secret is read again before every attempt, because a rotation
 * between two attempts changes the password the previous read returned.
 */
async function connect(deps: MigrateDeps, deadline = Date.now() + CONNECT_DEADLINE_MS): Promise<pg.Client> {
  let lastError: unknown;
  let backoff = FIRST_BACKOFF_MS;
  for (let attempt = 1; ; attempt += 1) {
    const { username, password } = await adminCredentials(deps);
    const client = new pg.Client({
      host: deps.config.host,
      port: deps.config.port,
      database: deps.config.database,
      user: username,
      password,
      // The cluster certificate chains to the RDS CA, which NODE_EXTRA_CA_CERTS makes Node trust.
      ssl: { rejectUnauthorized: true },
      connectionTimeoutMillis: Math.max(1_000, Math.min(CONNECT_TIMEOUT_MS, deadline - Date.now())),
    });
    try {
      await client.connect();
      return client;
    } catch (err) {
      lastError = err;
      await client.end().catch(() => undefined);
      logger.warn('login failed, retrying', { attempt, error: (err as Error).message });
    }
    if (Date.now() + backoff >= deadline) break;
    await sleep(backoff);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
  throw new Error(`could not connect to the measurement store: ${(lastError as Error).message}`);
}

async function admin(deps: MigrateDeps, argv: unknown): Promise<unknown> {
  try {
    if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string'))
      throw new AdminUsageError('admin is an array of strings (the command line)');
    const parsed = parseAdminArgs(argv);
    const client = await connect(deps);
    try {
      const { result, text, exitCode } = await runAdminCommand(client, parsed);
      logger.info('admin command', { command: parsed.command });
      return { ok: true, result, text, exitCode };
    } finally {
      await client.end();
    }
  } catch (err) {
    const refusal = refusalOf(err);
    if (!refusal) throw err;
    logger.info('admin command refused', { code: refusal.code });
    return { ok: false, error: refusal };
  }
}

/** The migration function: a custom resource event, or an `admin` payload. */
export function migrateHandler(deps: MigrateDeps) {
  return async (event: CustomResourceEvent & { admin?: unknown } = {}, context?: LambdaContext) => {
    if (event.admin !== undefined) return admin(deps, event.admin);

    // Deleting the resource must never touch the data; the schema outlives the stack's bookkeeping.
    if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId ?? PHYSICAL_ID };

    const client = await connect(deps);
    try {
      const applied = await migrate(client, {
        deadline: context && Date.now() + context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS,
        onLockWait: (attempt, err) => logger.warn('migrate waited too long for a lock, trying again', { attempt, error: err.message }),
      });
      // rds_iam exists on RDS only, so it cannot live in grants.sql (which also runs on local PostgreSQL).
      // readerUser is a plain identifier: the configuration refuses anything else.
      await client.query(`GRANT rds_iam TO ${deps.config.readerUser}`);
      logger.info('migrations applied', { applied });
      return { PhysicalResourceId: PHYSICAL_ID, Data: { Applied: applied.join(',') || 'none' } };
    } finally {
      await client.end();
    }
  };
}
