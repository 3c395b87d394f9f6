import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { AdminUsageError, parseAdminArgs, refusalOf, runAdminCommand } from '#shared/admin/commands.js';
import { KeyRevoked } from '#shared/errors.js';
import { fingerprint } from '#shared/keys.js';
import { lookupCaller } from '#shared/store/caller.js';
import { freshStore, type Store } from '../../../local/pglite.js';
import { asDb } from '../../support/face-read.js';

let store: Store;
const admin = (...argv: string[]) => runAdminCommand(store.db, parseAdminArgs(argv));
const lookup = (secret: string) => lookupCaller(asDb(store.db), fingerprint(secret), { lastUsedThrottleSeconds: 0 });

async function refusal(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (err) {
    return refusalOf(err)?.code ?? `unexpected: ${(err as Error).message}`;
  }
  return undefined;
}

beforeAll(async () => {
  store = await freshStore();
}, 120_000);

afterAll(async () => {
  await store?.pg.close();
});

describe('administration of a fresh stage: from an empty store to a working key', () => {
  let secret: string;

  test('plan, workspace, user, brand, membership, key: each command as an operator types it', async () => {
    expect((await admin('plan', 'put', '--key', 'growth', '--label', 'Growth', '--api', 'true', '--per-minute', '600')).text).toMatch(
      /^Created plan growth/,
    );
    expect((await admin('plan', 'put', '--key', 'growth', '--label', 'Growth', '--api', 'true', '--per-minute', '900')).text).toMatch(
      /^Updated plan growth/,
    );
    expect((await admin('workspace', 'create', '--slug', 'acme', '--name', 'Acme Inc.', '--plan', 'growth')).text).toMatch(
      /^Created workspace acme/,
    );
    await admin('user', 'create', '--email', 'Owner@Acme.com', '--name', 'Olivia');
    await admin('brand', 'create', '--workspace', 'acme', '--name', 'Acme', '--domain', 'acme.com');
    await admin('member', 'add', '--workspace', 'acme', '--user', 'owner@acme.com', '--role', 'owner');
    const key = await admin('key', 'create', '--workspace', 'acme', '--creator', 'owner@acme.com', '--name', 'ci', '--scope', 'workspace');
    secret = (key.result as { secret: string }).secret;
    expect(key.text).toContain(secret);

    const identity = await lookup(secret);
    expect(identity.workspace.slug).toBe('acme');
    expect(identity.plan).toEqual({ key: 'growth', perMinute: 900 });
    expect(identity.reach).toEqual({ count: 0 });

    const listed = await admin('workspace', 'list', '--json');
    expect(listed.result).toEqual([expect.objectContaining({ slug: 'acme', plan: 'growth', members: 1, active_keys: 1 })]);
  });

  test('refusals name what is wrong and write nothing', async () => {
    expect(await refusal(admin('workspace', 'create', '--slug', 'acme', '--name', 'Again', '--plan', 'growth'))).toBe('workspace_exists');
    expect(await refusal(admin('workspace', 'create', '--slug', 'other', '--name', 'Other', '--plan', 'platinum'))).toBe('plan_not_found');
    expect(await refusal(admin('workspace', 'create', '--slug', 'Bad Slug', '--name', 'x', '--plan', 'growth'))).toBe('invalid_input');
    expect(await refusal(admin('user', 'create', '--email', 'OWNER@acme.com', '--name', 'Twin'))).toBe('user_exists');
    expect(await refusal(admin('member', 'add', '--workspace', 'acme', '--user', 'nobody@acme.com', '--role', 'admin'))).toBe(
      'user_not_found',
    );
    expect(
      await refusal(admin('member', 'add', '--workspace', 'acme', '--user', 'owner@acme.com', '--role', 'owner', '--brands', 'Acme')),
    ).toBe('invalid_input');
    expect(await refusal(admin('brand', 'create', '--workspace', 'acme', '--name', 'Acme'))).toBe('brand_exists');
    expect(await refusal(admin('demo', 'load'))).toBe('store_not_empty');
    const { rows: ws } = await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM workspaces');
    expect(ws[0]!.n).toBe(1);
  });

  test('usage mistakes are caught while parsing, before any connection', () => {
    expect(() => parseAdminArgs([])).toThrow(AdminUsageError);
    expect(() => parseAdminArgs(['workspace', 'explode'])).toThrow(/unknown command "workspace explode"/);
    expect(() => parseAdminArgs(['plan', 'put', '--colour', 'blue'])).toThrow(AdminUsageError);
    expect(() => parseAdminArgs(['key', 'create', '--workspace', 'acme', '--creator', 'x', '--name', 'y', '--scope', 'team'])).toThrow(
      /--scope/,
    );
    expect(parseAdminArgs(['plan', 'list', '--json'])).toMatchObject({ command: 'plan list', json: true, argv: ['plan', 'list'] });
  });

  test('a member who leaves takes their keys with them; a restricted administrator cannot create keys', async () => {
    await admin('user', 'create', '--email', 'ada@acme.com', '--name', 'Ada');
    await admin('member', 'add', '--workspace', 'acme', '--user', 'ada@acme.com', '--role', 'admin');
    const key = (await admin('key', 'create', '--workspace', 'acme', '--creator', 'ada@acme.com', '--name', 'ada', '--scope', 'workspace'))
      .result as { secret: string };
    await expect(lookup(key.secret)).resolves.toBeDefined();
    await admin('member', 'remove', '--workspace', 'acme', '--user', 'ada@acme.com');
    await expect(lookup(key.secret)).rejects.toBeInstanceOf(KeyRevoked);
    expect(await refusal(admin('member', 'remove', '--workspace', 'acme', '--user', 'ada@acme.com'))).toBe('member_not_found');

    // Invited again: a new membership starts now (joined_at), the old key stays refused by the creator check.
    const before = await store.db.query<{ joined_at: Date }>(
      "SELECT joined_at FROM members m JOIN users u ON u.id = m.user_id WHERE u.email = 'ada@acme.com'",
    );
    await new Promise((r) => setTimeout(r, 5));
    await admin('member', 'add', '--workspace', 'acme', '--user', 'ada@acme.com', '--role', 'admin', '--brands', 'Acme');
    const after = await store.db.query<{ joined_at: Date; left_at: Date | null }>(
      "SELECT joined_at, left_at FROM members m JOIN users u ON u.id = m.user_id WHERE u.email = 'ada@acme.com'",
    );
    expect(after.rows[0]!.left_at).toBeNull();
    expect(after.rows[0]!.joined_at.getTime()).toBeGreaterThan(before.rows[0]!.joined_at.getTime());
    expect(
      await refusal(admin('key', 'create', '--workspace', 'acme', '--creator', 'ada@acme.com', '--name', 'x', '--scope', 'workspace')),
    ).toBe('creator_not_allowed');
    expect((await admin('member', 'list', '--workspace', 'acme', '--json')).result).toEqual([
      expect.objectContaining({ email: 'ada@acme.com', role: 'admin', brands: 'Acme', status: 'active' }),
      expect.objectContaining({ email: 'Owner@Acme.com', role: 'owner', brands: null, status: 'active' }),
    ]);
  });

  test('revoking through the same table', async () => {
    const keys = (await admin('key', 'list', '--workspace', 'acme', '--json')).result as Array<{
      id: string;
      status: string;
      name: string;
    }>;
    const ci = keys.find((k) => k.name === 'ci')!;
    await admin('key', 'revoke', '--id', ci.id);
    await expect(lookup(secret)).rejects.toBeInstanceOf(KeyRevoked);
  });
});

describe('demo load', () => {
  test('fills an empty store with the demo, but no key: the demo secrets derive from a public seed', async () => {
    const empty = await freshStore();
    try {
      const out = await runAdminCommand(empty.db, parseAdminArgs(['demo', 'load']));
      expect(out.text).toContain('key create --workspace acme --creator owner@acme.test');
      const counts = await empty.db.query<{ keys: number; workspaces: number; runs: number }>(
        'SELECT (SELECT count(*)::int FROM api_keys) AS keys, (SELECT count(*)::int FROM workspaces) AS workspaces, (SELECT count(*)::int FROM runs) AS runs',
      );
      expect(counts.rows[0]).toMatchObject({ keys: 0 });
      expect(counts.rows[0]!.workspaces).toBeGreaterThan(0);
      expect(counts.rows[0]!.runs).toBeGreaterThan(0);
      const key = await runAdminCommand(
        empty.db,
        parseAdminArgs(['key', 'create', '--workspace', 'acme', '--creator', 'owner@acme.test', '--name', 'demo', '--scope', 'workspace']),
      );
      const identity = await lookupCaller(asDb(empty.db), fingerprint((key.result as { secret: string }).secret), {
        lastUsedThrottleSeconds: 0,
      });
      expect(identity.reach.count).toBeGreaterThan(0);
    } finally {
      await empty.pg.close();
    }
  }, 120_000);
});

describe('npm run admin over DATABASE_URL', () => {
  test('the CLI runs a command on an owner connection and prints JSON with --json', async () => {
    const server = new PGLiteSocketServer({ db: store.pg, host: '127.0.0.1', port: 0 });
    await server.start();
    try {
      const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
      const url = `postgres://postgres@${server.getServerConn()}/postgres?sslmode=disable`;
      const { stdout } = await promisify(execFile)(tsx, ['bin/admin.ts', 'plan', 'list', '--json'], {
        env: { ...process.env, DATABASE_URL: url, ADMIN_FUNCTION: '', NODE_OPTIONS: '' },
      });
      expect(JSON.parse(stdout)).toEqual([{ key: 'growth', label: 'Growth', api_access: true, calls_per_minute: 900 }]);
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe('npm run admin through ADMIN_FUNCTION', () => {
  test("on a Node older than the AWS SDK's coming floor, one line says so, not the SDK's nine-line warning", async () => {
    const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: '',
      NODE_OPTIONS: '',
      // A function nobody answers for: the command fails after the client is built.
      ADMIN_FUNCTION: 'geo-nowhere',
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'example',
      AWS_ENDPOINT_URL_LAMBDA: 'http://127.0.0.1:9',
      AWS_MAX_ATTEMPTS: '1',
    };
    // What the test runner sets for itself (test/support/env.ts): the CLI must quiet the SDK on its own.
    delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
    const failed = await promisify(execFile)(tsx, ['bin/admin.ts', 'plan', 'list'], { env }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^admin: failed: /m);
    expect(failed.stderr).not.toMatch(/NodeVersionSupportWarning/);
    const older = Number(process.versions.node.split('.')[0]) < 22;
    expect(failed.stderr.match(/need Node 22 or newer/g)?.length ?? 0).toBe(older ? 1 : 0);
  }, 60_000);
});

// Last: it adds a brand and a member to the workspace the tests above list.
describe('names as the store keeps them', () => {
  test('a name typed decomposed (NFD) is kept precomposed (NFC), the form the store takes, and names the same brand', async () => {
    const nfd = 'Socie\u0301te\u0301';
    const nfc = 'Soci\u00e9t\u00e9';
    const created = await admin('brand', 'create', '--workspace', 'acme', '--name', nfd);
    expect((created.result as { name: string }).name).toBe(nfc);
    expect((await store.db.query('SELECT name FROM brands WHERE name = $1', [nfc])).rows).toEqual([{ name: nfc }]);
    expect(await refusal(admin('brand', 'create', '--workspace', 'acme', '--name', nfc))).toBe('brand_exists');
    await admin('user', 'create', '--email', 'nfd@acme.com', '--name', 'Noe\u0308l');
    expect((await store.db.query(`SELECT name FROM users WHERE email = 'nfd@acme.com'`)).rows).toEqual([{ name: 'No\u00ebl' }]);
    await admin('member', 'add', '--workspace', 'acme', '--user', 'nfd@acme.com', '--role', 'member', '--brands', nfd);
    const { rows: members } = await store.db.query(
      `SELECT b.name FROM members m JOIN users u ON u.id = m.user_id JOIN brands b ON b.id = ANY (m.brand_ids) WHERE u.email = 'nfd@acme.com'`,
    );
    expect(members).toEqual([{ name: nfc }]);
    // Written around the CLI, the decomposed form is refused by the store itself.
    await expect(
      store.db.query(`INSERT INTO brands (id, workspace_id, name) SELECT gen_random_uuid(), id, $1 FROM workspaces LIMIT 1`, [nfd]),
    ).rejects.toMatchObject({ code: '23514', constraint: 'brands_name_nfc' });
  });
});
