import { readFile } from 'node:fs/promises';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import pg from 'pg';
import {
  ADMIN_EXIT,
  ADMIN_USAGE,
  type AdminOutcome,
  AdminUsageError,
  type ParsedAdminCommand,
  parseAdminArgs,
  refusalOf,
  runAdminCommand,
} from '#shared/admin/commands.js';
import { noticeNodeVersion } from '../local/node-notice.js';
import { ownerTransactions } from '../local/owner-session.js';
import { adminClientConfig } from '../scripts/admin-connection.js';

/**
 * `npm run admin -- <command>` (and `npm run keys -- <key command>`). Three ways to the store, same commands:
 *   - DATABASE_URL: an owner connection (local PostgreSQL, or a deployed cluster through a tunnel);
 *   - neither setting, while `npm start` runs on its embedded store: the owner_url it wrote to
 *     .local/demo.json;
 *   - ADMIN_FUNCTION: the name of a deployed stage's migration function (the MigrateFunctionName output),
 *     invoked with {"admin": [...argv]}; it runs the same command as the cluster owner. Needs AWS
 *     credentials allowed lambda:InvokeFunction on it (and a region: AWS_REGION or the profile's).
 * Exit codes: 0 done, 1 refused or failed, 2 bad usage.
 */

const HELP = `${ADMIN_USAGE}

Where the commands run:
  DATABASE_URL=postgres://OWNER@HOST/DB        an owner connection (through a tunnel: see docs/operating.md)
  ADMIN_FUNCTION=<MigrateFunctionName output>  a deployed stage, through its migration function
  neither                                      the embedded store of a running \`npm start\` (.local/demo.json)

Exit codes: ${ADMIN_EXIT.done} done, ${ADMIN_EXIT.failed} refused or failed, ${ADMIN_EXIT.usage} bad usage, ${ADMIN_EXIT.drift} verify-aggregates found drift it did not repair.`;

interface FunctionResponse {
  ok?: boolean;
  result?: unknown;
  text?: string;
  exitCode?: number;
  error?: { code: string; message: string };
  errorMessage?: string;
}

class Refused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function viaFunction(name: string, parsed: ParsedAdminCommand): Promise<AdminOutcome> {
  // The one path that builds an AWS SDK client: its Node warning as one line, as npm start says it.
  noticeNodeVersion();
  const client = new LambdaClient({});
  try {
    const out = await client.send(
      new InvokeCommand({ FunctionName: name, Payload: new TextEncoder().encode(JSON.stringify({ admin: parsed.argv })) }),
    );
    const body = JSON.parse(new TextDecoder().decode(out.Payload ?? new Uint8Array())) as FunctionResponse;
    if (out.FunctionError) throw new Error(`the function failed: ${body.errorMessage ?? out.FunctionError}`);
    if (body.ok === false && body.error) throw new Refused(body.error.code, body.error.message);
    return { result: body.result, text: body.text ?? '', exitCode: body.exitCode };
  } finally {
    client.destroy();
  }
}

/** Where `npm start` left its embedded store's owner connection, if it runs on one. */
const LOCAL_STATE = '.local/demo.json';

async function embeddedOwnerUrl(): Promise<string | undefined> {
  try {
    return (JSON.parse(await readFile(LOCAL_STATE, 'utf8')) as { owner_url?: string }).owner_url;
  } catch {
    return undefined;
  }
}

async function viaEmbedded(url: string, parsed: ParsedAdminCommand): Promise<AdminOutcome> {
  const db = new pg.Client({ connectionString: url });
  try {
    await db.connect();
  } catch (err) {
    throw new Error(
      `no embedded store answers at ${new URL(url).host} (${LOCAL_STATE}): is npm start running? (${(err as Error).message})`,
    );
  }
  try {
    return await runAdminCommand(ownerTransactions(db), parsed);
  } finally {
    await db.end();
  }
}

async function viaDatabase(url: string, parsed: ParsedAdminCommand): Promise<AdminOutcome> {
  const db = new pg.Client(adminClientConfig(url));
  await db.connect();
  try {
    const { rows } = await db.query<{ role: string }>('SELECT current_user AS role');
    if (rows[0]?.role === 'geo_reader') {
      throw new Error('DATABASE_URL connects as the read-only service role geo_reader; use an owner role');
    }
    return await runAdminCommand(db, parsed);
  } finally {
    await db.end();
  }
}

async function run(parsed: ParsedAdminCommand, fn: string | undefined, url: string | undefined): Promise<AdminOutcome> {
  if (fn) return viaFunction(fn, parsed);
  if (url) return viaDatabase(url, parsed);
  const embedded = await embeddedOwnerUrl();
  if (embedded) return viaEmbedded(embedded, parsed);
  throw new AdminUsageError(
    'set DATABASE_URL (an owner connection) or ADMIN_FUNCTION (a deployed stage), or run npm start (its embedded store)',
  );
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(HELP);
    return;
  }
  const parsed = parseAdminArgs(argv);
  const fn = process.env.ADMIN_FUNCTION;
  const url = process.env.DATABASE_URL;
  const outcome = await run(parsed, fn, url);
  console.log(parsed.json ? JSON.stringify(outcome.result, null, 2) : outcome.text);
  if (outcome.exitCode) process.exitCode = outcome.exitCode;
}

try {
  await main(process.argv.slice(2));
} catch (err) {
  const refusal = err instanceof Refused ? { code: err.code, message: err.message } : refusalOf(err);
  if (refusal?.code === 'usage') {
    console.error(`admin: ${refusal.message}\n\n${HELP}`);
    process.exitCode = ADMIN_EXIT.usage;
  } else if (refusal) {
    console.error(`admin: refused (${refusal.code}): ${refusal.message}`);
    process.exitCode = ADMIN_EXIT.failed;
  } else {
    console.error(`admin: failed: ${(err as Error).message}`);
    process.exitCode = ADMIN_EXIT.failed;
  }
}
