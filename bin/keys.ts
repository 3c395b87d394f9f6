import { parseArgs } from 'node:util';
import pg from 'pg';
import { KEY_SCOPES, KeyAdminError, createKey, listKeys, revokeKey, type KeyScope } from '../shared/store/keys-admin.js';

const USAGE = `Administer API keys (needs DATABASE_URL with an owner or admin role, not the read-only service role).

  npm run keys -- create --workspace SLUG|ID --creator EMAIL|USER_ID --name NAME --scope workspace|brand|analysis
                         [--brand NAME|ID] [--analysis SLUG|ID] [--expires 90|365]
  npm run keys -- list --workspace SLUG|ID [--json]
  npm run keys -- revoke --id KEY_ID

Exit codes: 0 done, 1 refused or failed, 2 bad usage.`;

class UsageError extends Error {}

function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`--${flag} is required`);
  return value;
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        workspace: { type: 'string' },
        creator: { type: 'string' },
        name: { type: 'string' },
        scope: { type: 'string' },
        brand: { type: 'string' },
        analysis: { type: 'string' },
        expires: { type: 'string' },
        id: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

async function connect(): Promise<pg.Client> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new UsageError('DATABASE_URL is not set');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ role: string }>('SELECT current_user AS role');
  if (rows[0]?.role === 'geo_reader') {
    await client.end();
    throw new Error('DATABASE_URL connects as the read-only service role geo_reader; use an owner or admin role');
  }
  return client;
}

function pad(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n');
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv);
  const command = positionals[0];
  if (values.help || !command) {
    console.log(USAGE);
    if (!command && !values.help) throw new UsageError('a command is required: create, list or revoke');
    return;
  }
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);

  if (command === 'create') {
    const scope = required(values.scope, 'scope');
    if (!(KEY_SCOPES as readonly string[]).includes(scope)) throw new UsageError(`--scope must be one of ${KEY_SCOPES.join(', ')}`);
    const expires = values.expires === undefined ? 365 : Number(values.expires);
    if (expires !== 90 && expires !== 365) throw new UsageError('--expires must be 90 or 365 (days)');
    const input = {
      workspace: required(values.workspace, 'workspace'),
      creator: required(values.creator, 'creator'),
      name: required(values.name, 'name'),
      scope: scope as KeyScope,
      brand: values.brand,
      analysis: values.analysis,
      expiresInDays: expires,
    };
    const db = await connect();
    try {
      const key = await createKey(db, input);
      console.log(`Created key ${key.id} "${input.name.trim()}" (scope ${scope}) in workspace ${input.workspace}; expires ${key.expires_at}.`);
      if (!key.plan_allows_api) console.warn('Warning: the plan of this workspace excludes the API; calls with this key get 403 plan_required.');
      console.log('\nSecret, shown this once and NOT stored anywhere. Copy it now; a lost secret cannot be recovered, only revoked and replaced:\n');
      console.log(`  ${key.secret}\n`);
    } finally {
      await db.end();
    }
    return;
  }

  if (command === 'list') {
    const workspace = required(values.workspace, 'workspace');
    const db = await connect();
    try {
      const keys = await listKeys(db, workspace);
      if (values.json) {
        console.log(JSON.stringify(keys, null, 2));
        return;
      }
      if (keys.length === 0) {
        console.log(`No keys in workspace ${workspace}.`);
        return;
      }
      const header = ['ID', 'NAME', 'PREFIX', 'SCOPE', 'TARGET', 'STATUS', 'CREATED BY', 'CREATED', 'EXPIRES'];
      const lines = keys.map((k) => [
        k.id, k.name, `${k.prefix}…`, k.scope, k.brand ?? k.analysis ?? '-', k.status, k.created_by,
        k.created_at.slice(0, 10), k.expires_at.slice(0, 10),
      ]);
      console.log(pad([header, ...lines]));
    } finally {
      await db.end();
    }
    return;
  }

  if (command === 'revoke') {
    const id = required(values.id, 'id');
    const db = await connect();
    try {
      const revoked = await revokeKey(db, id);
      console.log(`Revoked key ${revoked.id} at ${revoked.revoked_at}. Calls made with it now get 401 key_revoked.`);
    } finally {
      await db.end();
    }
    return;
  }

  throw new UsageError(`unknown command "${command}"; expected create, list or revoke`);
}

try {
  await run(process.argv.slice(2));
} catch (err) {
  if (err instanceof UsageError) {
    console.error(`keys: ${err.message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else if (err instanceof KeyAdminError) {
    console.error(`keys: refused (${err.code}): ${err.message}`);
    process.exitCode = 1;
  } else {
    console.error(`keys: failed: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}
