import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { ownerTransactions } from '../../../local/owner-session.js';
import { freshTableName, type LocalApi, startApi } from '../../../local/stack.js';
import { createBudgetTable, type LocalStore } from '../../../local/stores.js';
import { dynamoEndpoint, testConfig } from '../../support/api.js';
import { startOwnEmbeddedStore } from '../../support/own-store.js';

/**
 * docs/administration.md#the-embedded-store: while npm start runs on its embedded store, `npm run admin`
 * with no DATABASE_URL finds the store through .local/demo.json and runs as the owner, one transaction at
 * a time, while the API beside it keeps reading as the service role. Always embedded: that is the store
 * this path is for, whichever store the run's other files use.
 */

const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const cli = join(process.cwd(), 'bin', 'admin.ts');

let store: LocalStore;
let api: LocalApi;
let cwd: string;

beforeAll(async () => {
  store = await startOwnEmbeddedStore();
  const table = freshTableName();
  await createBudgetTable(dynamoEndpoint(), table);
  api = await startApi(testConfig(store.readerUrl, { BUDGET_TABLE: table }));
  // What bin/start.ts writes, in a directory of the test's own (the CLI reads it from where it runs).
  cwd = await mkdtemp(join(tmpdir(), 'geo-admin-embedded-'));
  await mkdir(join(cwd, '.local'));
  await writeFile(join(cwd, '.local', 'demo.json'), JSON.stringify({ base_url: api.baseUrl, owner_url: store.ownerUrl }));
}, 120_000);

afterAll(async () => {
  await api?.close();
  await store?.close();
  await rm(cwd, { recursive: true, force: true });
});

async function admin(...args: string[]): Promise<any> {
  const env = { ...process.env, DATABASE_URL: '', ADMIN_FUNCTION: '', NODE_OPTIONS: '' };
  const { stdout } = await promisify(execFile)(tsx, [cli, ...args, '--json'], { cwd, env });
  return JSON.parse(stdout);
}

describe('npm run admin against the embedded store of npm start', () => {
  test('a workspace, its owner and a key in one command (workspace setup); the key then answers /me', async () => {
    const plans = await admin('plan', 'list');
    const plan = plans[0].key as string;
    const setup = await admin('workspace', 'setup', '--slug', 'my-own', '--name', 'My own', '--plan', plan, '--owner', 'me@my-own.test');
    expect({ workspace: setup.workspace.slug, owner: setup.member.user, role: setup.member.role }).toEqual({
      workspace: 'my-own',
      owner: 'me@my-own.test',
      role: 'owner',
    });
    const me = await fetch(`${api.baseUrl}/me`, { headers: { authorization: `Bearer ${setup.key.secret}` } });
    const body = await me.json();
    expect({ status: me.status, workspace: body.workspace?.slug, scope: body.key?.scope }).toEqual({
      status: 200,
      workspace: 'my-own',
      scope: 'workspace',
    });
    // Again with the same slug: refused at its first step, which the message names; nothing else is made.
    const again = admin('workspace', 'setup', '--slug', 'my-own', '--name', 'Other', '--plan', plan, '--owner', 'other@my-own.test');
    await expect(again).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('refused (workspace_exists): workspace create: workspace "my-own" already exists'),
    });
    expect((await admin('key', 'list', '--workspace', 'my-own')).length).toBe(1);
  }, 120_000);

  test("the service's connections still read as the read-only role afterwards, and cannot write", async () => {
    await admin('workspace', 'list');
    const reader = new pg.Client({ connectionString: store.readerUrl });
    await reader.connect();
    try {
      expect((await reader.query('SELECT current_user AS role')).rows[0].role).toBe('geo_reader');
      await expect(reader.query("INSERT INTO plans (key, label, api_access, calls_per_minute) VALUES ('x', 'x', true, 1)")).rejects.toThrow(
        /permission denied/,
      );
    } finally {
      await reader.end();
    }
  }, 60_000);

  test('with no setting and no running stack, the CLI says what to set (exit 2)', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'geo-admin-none-'));
    try {
      const env = { ...process.env, DATABASE_URL: '', ADMIN_FUNCTION: '', NODE_OPTIONS: '' };
      const run = promisify(execFile)(tsx, [cli, 'workspace', 'list'], { cwd: empty, env });
      await expect(run).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('or run npm start (its embedded store)') });
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  }, 60_000);

  test('verify-aggregates: drift left in place exits 3, whose text names it; repaired, no drift and exit 0', async () => {
    const env = { ...process.env, DATABASE_URL: '', ADMIN_FUNCTION: '', NODE_OPTIONS: '' };
    const verify = (...more: string[]) => promisify(execFile)(tsx, [cli, 'verify-aggregates', ...more], { cwd, env });
    // As an operator's connection to this store writes: the owner role for its own transaction only.
    const connection = new pg.Client({ connectionString: store.ownerUrl });
    await connection.connect();
    try {
      await ownerTransactions(connection).query(`UPDATE fig_month_engine SET answers = answers + 1
        WHERE (analysis_id, month, engine) = (SELECT analysis_id, month, engine FROM fig_month_engine ORDER BY 1, 2, 3 LIMIT 1)`);
    } finally {
      await connection.end();
    }
    await expect(verify()).rejects.toMatchObject({
      code: 3,
      stdout: expect.stringMatching(/^Drift found in 1 row of 1 table:\n {2}fig_month_engine: 1 row/),
    });
    // --json prints the same finding and exits the same way.
    const json = await verify('--json').catch((err: { code: number; stdout: string }) => err);
    expect({
      code: (json as { code?: number }).code,
      tables: JSON.parse(json.stdout).drift.map((d: { table: string }) => d.table),
    }).toEqual({
      code: 3,
      tables: ['fig_month_engine'],
    });
    expect((await verify('--repair')).stdout).toMatch(/^Repaired 1 row of 1 table:/);
    expect((await verify()).stdout).toMatch(/^No drift: /);
  }, 120_000);
});
