import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import pg from 'pg';
import { createKey, listKeys, revokeKey, type CreateKeyInput } from '../../shared/store/keys-admin.js';
import { migrate } from '../../shared/store/migrate.js';

/**
 * One-shot schema migration for the measurement store, run by a CloudFormation custom resource on every
 * deploy whose migrations changed (or invoked by hand: `aws lambda invoke --function-name <name> out.json`).
 *
 * It logs in as the cluster owner with the admin secret (read at run time, never placed in the
 * environment), applies the pending migrations, then lets geo_reader log in with IAM tokens. The
 * migrations and grants.sql are copied next to the bundle at build time; migrate.ts finds them there.
 *
 * A direct invocation with a `keys` payload administers API keys with the same code as `npm run keys`,
 * for operators who have no network path to the isolated database (see the README, Deploy):
 *   {"keys": {"command": "create", "workspace": "acme", "creator": "owner@acme.test", "name": "ci", "scope": "workspace"}}
 *   {"keys": {"command": "list", "workspace": "acme"}}     {"keys": {"command": "revoke", "id": "<uuid>"}}
 * The created secret is in the invocation response only; it is never logged.
 */

interface CustomResourceEvent {
  RequestType?: 'Create' | 'Update' | 'Delete';
  PhysicalResourceId?: string;
}

type KeysCommand =
  | ({ command: 'create' } & CreateKeyInput)
  | { command: 'list'; workspace: string }
  | { command: 'revoke'; id: string };

interface AdminSecret {
  username: string;
  password: string;
}

const PHYSICAL_ID = 'measurement-store-schema';
/** Long on purpose: a paused Aurora cluster takes ~20 s to resume, and this runs once per deploy. */
const CONNECT_TIMEOUT_MS = 60_000;
const ATTEMPTS = 3;

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

async function adminCredentials(): Promise<AdminSecret> {
  const out = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: env('ADMIN_SECRET_ARN') }));
  const parsed = JSON.parse(out.SecretString ?? '{}') as Partial<AdminSecret>;
  if (!parsed.username || !parsed.password) throw new Error('admin secret lacks username or password');
  return { username: parsed.username, password: parsed.password };
}

async function connect(): Promise<pg.Client> {
  const { username, password } = await adminCredentials();
  let lastError: unknown;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const client = new pg.Client({
      host: env('DB_HOST'),
      port: Number(env('DB_PORT')),
      database: env('DB_NAME'),
      user: username,
      password,
      // The cluster certificate chains to the RDS CA bundle, which NODE_EXTRA_CA_CERTS points at.
      ssl: { rejectUnauthorized: true },
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    try {
      await client.connect();
      return client;
    } catch (err) {
      lastError = err;
      await client.end().catch(() => undefined);
    }
  }
  throw new Error(`could not connect to the measurement store: ${(lastError as Error).message}`);
}

async function keys(cmd: KeysCommand): Promise<unknown> {
  const client = await connect();
  try {
    switch (cmd.command) {
      case 'create': {
        const { command: _command, ...input } = cmd;
        return await createKey(client, input);
      }
      case 'list':
        return await listKeys(client, cmd.workspace);
      case 'revoke':
        return await revokeKey(client, cmd.id);
      default:
        throw new Error('keys.command must be create, list or revoke');
    }
  } finally {
    await client.end();
  }
}

export const handler = async (event: CustomResourceEvent & { keys?: KeysCommand } = {}) => {
  if (event.keys) {
    const result = await keys(event.keys);
    console.log(JSON.stringify({ level: 'INFO', msg: 'keys command', command: event.keys.command }));
    return result;
  }

  // Deleting the resource must never touch the data; the schema outlives the stack's bookkeeping.
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId ?? PHYSICAL_ID };

  const client = await connect();
  try {
    const applied = await migrate(client);
    // rds_iam exists on RDS only, so it cannot live in grants.sql (which also runs on local PostgreSQL).
    const reader = env('READER_DB_USER');
    if (!/^[a-z_][a-z0-9_]*$/.test(reader)) throw new Error('READER_DB_USER is not a plain identifier');
    await client.query(`GRANT rds_iam TO ${reader}`);
    console.log(JSON.stringify({ level: 'INFO', msg: 'migrations applied', applied }));
    return { PhysicalResourceId: PHYSICAL_ID, Data: { Applied: applied.join(',') || 'none' } };
  } finally {
    await client.end();
  }
};
