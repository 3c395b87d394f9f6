import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import type { DemoManifest } from '#shared/admin/demo.js';
import { type CreateKeyInput, createKey, KeyAdminError, listKeys, MAX_ACTIVE_KEYS, revokeKey } from '#shared/admin/keys.js';
import { fingerprint, SECRET_PATTERN } from '#shared/keys.js';
import type { Store } from '../../../local/pglite.js';
import { seededStore } from '../../support/own-store.js';

let store: Store;
let manifest: DemoManifest;

const owner = 'owner@acme.test';
const base: CreateKeyInput = { workspace: 'acme', creator: owner, name: 'CI', scope: 'workspace' };

/** The keys the listing calls active: what the limit counts. */
async function activeCount(workspace: string): Promise<number> {
  return (await listKeys(store.db, workspace)).filter((k) => k.status === 'active').length;
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof KeyAdminError) return err.code;
    throw err;
  }
  throw new Error('expected a refusal');
}

beforeAll(async () => {
  // The demo as the run seeded it, ending today (or yesterday early in the day): the demo keys' expiry
  // is then meaningful against the database clock.
  ({ store, manifest } = await seededStore());
}, 120_000);

afterAll(async () => {
  await store?.pg.close();
});

describe('createKey', () => {
  // Each test starts from the demo's six active Acme keys, so the ten-key ceiling only bites where intended.
  afterEach(async () => {
    await store.db.query(
      'UPDATE api_keys SET revoked_at = now() WHERE workspace_id = $1 AND revoked_at IS NULL AND NOT (fingerprint = ANY($2::text[]))',
      [manifest.workspaces.acme, Object.values(manifest.keys).map(fingerprint)],
    );
  });

  test('returns a secret once and stores only its prefix and fingerprint', async () => {
    const key = await createKey(store.db, base);
    expect(key.secret).toMatch(SECRET_PATTERN);
    expect(key.prefix).toBe(key.secret.slice(0, 12));
    expect(key.plan_allows_api).toBe(true);
    const days = (Date.parse(key.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(364.9);
    expect(days).toBeLessThan(365.1);

    const { rows } = await store.db.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE id = $1', [key.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      prefix: key.prefix,
      fingerprint: fingerprint(key.secret),
      scope: 'workspace',
      brand_id: null,
      analysis_id: null,
    });
    // No column of the table, on any row, holds the secret or its body.
    const { rows: everything } = await store.db.query<{ t: string }>('SELECT k::text AS t FROM api_keys k');
    for (const r of everything) {
      expect(r.t).not.toContain(key.secret);
      expect(r.t).not.toContain(key.secret.slice(9));
    }
  });

  test('takes 90 days on request and refuses other lifetimes', async () => {
    const key = await createKey(store.db, { ...base, name: 'short', expiresInDays: 90 });
    const days = (Date.parse(key.expires_at) - Date.now()) / 86_400_000;
    expect(Math.round(days)).toBe(90);
    expect(await refusal(createKey(store.db, { ...base, expiresInDays: 30 }))).toBe('invalid_input');
  });

  test('scopes a key to a brand or an analysis of the workspace, by name/slug or id', async () => {
    const byName = await createKey(store.db, { ...base, scope: 'brand', brand: 'Zenith' });
    const byId = await createKey(store.db, { ...base, scope: 'analysis', analysis: manifest.analysisIds.collected });
    const bySlug = await createKey(store.db, {
      ...base,
      scope: 'analysis',
      analysis: manifest.analyses.other_brand,
      creator: manifest.users['admin@acme.test'] as string,
    });
    const { rows } = await store.db.query<Record<string, unknown>>(
      'SELECT id, scope, brand_id, analysis_id FROM api_keys WHERE id = ANY($1::uuid[]) ORDER BY scope, analysis_id',
      [[byName.id, byId.id, bySlug.id]],
    );
    expect(rows).toContainEqual({ id: byName.id, scope: 'brand', brand_id: manifest.brands.Zenith, analysis_id: null });
    expect(rows).toContainEqual({ id: byId.id, scope: 'analysis', brand_id: null, analysis_id: manifest.analysisIds.collected });
    expect(rows).toContainEqual({ id: bySlug.id, scope: 'analysis', brand_id: null, analysis_id: manifest.analysisIds.other_brand });
  });

  test('refuses a brand or an analysis of another workspace', async () => {
    expect(await refusal(createKey(store.db, { ...base, scope: 'brand', brand: 'Globex' }))).toBe('brand_not_found');
    expect(await refusal(createKey(store.db, { ...base, scope: 'brand', brand: manifest.brands.Globex as string }))).toBe(
      'brand_not_found',
    );
    expect(await refusal(createKey(store.db, { ...base, scope: 'analysis', analysis: manifest.analyses.other_workspace }))).toBe(
      'analysis_not_found',
    );
    expect(await refusal(createKey(store.db, { ...base, scope: 'analysis', analysis: manifest.analysisIds.other_workspace }))).toBe(
      'analysis_not_found',
    );
  });

  test('refuses inconsistent scope arguments and an empty name', async () => {
    expect(await refusal(createKey(store.db, { ...base, scope: 'brand' }))).toBe('invalid_input');
    expect(await refusal(createKey(store.db, { ...base, brand: 'Acme' }))).toBe('invalid_input');
    expect(await refusal(createKey(store.db, { ...base, scope: 'analysis' }))).toBe('invalid_input');
    expect(await refusal(createKey(store.db, { ...base, name: '   ' }))).toBe('invalid_input');
    expect(await refusal(createKey(store.db, { ...base, scope: 'everything' as 'workspace' }))).toBe('invalid_input');
  });

  test('accepts an owner or an unrestricted administrator only', async () => {
    await expect(createKey(store.db, { ...base, creator: 'ADMIN@acme.test' })).resolves.toMatchObject({ prefix: expect.any(String) });
    await expect(
      createKey(store.db, { ...base, workspace: manifest.workspaces.acme as string, creator: manifest.users[owner] as string }),
    ).resolves.toBeDefined();
    const refused = {
      'zenith-admin@acme.test': 'creator_not_allowed', // administrator restricted to brand Zenith
      'member@acme.test': 'creator_not_allowed',
      'former@acme.test': 'creator_not_allowed', // left the workspace
      'suspended@acme.test': 'creator_not_allowed',
      'owner@globex.test': 'creator_not_allowed', // owner elsewhere, not a member here
      'nobody@acme.test': 'creator_not_found',
    };
    for (const [creator, code] of Object.entries(refused)) {
      expect([creator, await refusal(createKey(store.db, { ...base, creator }))]).toEqual([creator, code]);
    }
    expect(await refusal(createKey(store.db, { ...base, workspace: 'no-such-workspace' }))).toBe('workspace_not_found');
  });

  test('refuses the eleventh active key; revoked, expired and creator-inactive keys do not count', async () => {
    const dead = new Set((await listKeys(store.db, 'acme')).filter((k) => k.status !== 'active').map((k) => k.status));
    expect([...dead].sort()).toEqual(['creator_inactive', 'expired', 'revoked']);
    while ((await activeCount('acme')) < MAX_ACTIVE_KEYS) await createKey(store.db, { ...base, name: 'filler' });
    const err = await createKey(store.db, { ...base, name: 'eleventh' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeyAdminError);
    expect((err as KeyAdminError).code).toBe('key_limit_reached');
    expect((err as KeyAdminError).message).toMatch(/revoke one/);
    expect(await activeCount('acme')).toBe(MAX_ACTIVE_KEYS);

    const victim = (await listKeys(store.db, 'acme')).find((k) => k.status === 'active' && k.name === 'filler');
    await revokeKey(store.db, victim?.id as string);
    await expect(createKey(store.db, { ...base, name: 'replacement' })).resolves.toBeDefined();
    expect(await activeCount('acme')).toBe(MAX_ACTIVE_KEYS);
  });

  test('two concurrent creations cannot both take the last slot', async () => {
    const globex = { workspace: 'globex', creator: 'owner@globex.test', name: 'race', scope: 'workspace' as const };
    while ((await activeCount('globex')) < MAX_ACTIVE_KEYS - 1) await createKey(store.db, globex);
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => createKey(store.db, globex)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const codes = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as KeyAdminError).code] : []));
    expect(codes).toEqual(Array(4).fill('key_limit_reached'));
    expect(await activeCount('globex')).toBe(MAX_ACTIVE_KEYS);
  });

  test('a workspace whose plan excludes the API still gets keys, flagged as unusable', async () => {
    const key = await createKey(store.db, { workspace: 'brightside', creator: 'owner@brightside.test', name: 'x', scope: 'workspace' });
    expect(key.plan_allows_api).toBe(false);
  });
});

describe('listKeys', () => {
  test('shows status and metadata, never a secret or a fingerprint', async () => {
    const keys = await listKeys(store.db, 'acme');
    const text = JSON.stringify(keys);
    for (const secret of Object.values(manifest.keys)) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(fingerprint(secret));
    }
    for (const k of keys) {
      expect(Object.keys(k).sort()).toEqual(
        [
          'analysis',
          'brand',
          'created_at',
          'created_by',
          'expires_at',
          'id',
          'last_used_at',
          'name',
          'prefix',
          'revoked_at',
          'scope',
          'status',
        ].sort(),
      );
    }
    const byPrefix = (label: keyof DemoManifest['keys']) => keys.find((k) => k.prefix === manifest.keys[label].slice(0, 12));
    expect(byPrefix('workspace')).toMatchObject({ status: 'active', created_by: owner, scope: 'workspace' });
    expect(byPrefix('brand')).toMatchObject({ status: 'active', brand: 'Acme' });
    expect(byPrefix('analysis')).toMatchObject({ status: 'active', analysis: manifest.analyses.collected });
    expect(byPrefix('revoked')).toMatchObject({ status: 'revoked' });
    expect(byPrefix('expired')).toMatchObject({ status: 'expired' });
    expect(byPrefix('creator_removed')).toMatchObject({ status: 'creator_inactive' });
    expect(byPrefix('creator_suspended')).toMatchObject({ status: 'creator_inactive' });
    expect(keys.some((k) => k.prefix === manifest.keys.other_workspace.slice(0, 12))).toBe(false);
  });

  test('refuses an unknown workspace', async () => {
    expect(await refusal(listKeys(store.db, 'nope'))).toBe('workspace_not_found');
  });
});

describe('revokeKey', () => {
  test('revokes once, then says it already was; unknown and malformed ids are refused', async () => {
    const key = await createKey(store.db, { workspace: 'tinylab', creator: 'owner@tinylab.test', name: 'temp', scope: 'workspace' });
    const revoked = await revokeKey(store.db, key.id);
    expect(revoked.id).toBe(key.id);
    expect(Number.isNaN(Date.parse(revoked.revoked_at))).toBe(false);
    expect((await listKeys(store.db, 'tinylab')).find((k) => k.id === key.id)?.status).toBe('revoked');
    expect(await refusal(revokeKey(store.db, key.id))).toBe('already_revoked');
    expect(await refusal(revokeKey(store.db, '00000000-0000-4000-8000-000000000000'))).toBe('key_not_found');
    expect(await refusal(revokeKey(store.db, 'not-a-uuid'))).toBe('invalid_input');
  });
});

describe('npm run keys (bin/admin.ts key ...)', () => {
  const run = async (args: string[], env: NodeJS.ProcessEnv) => {
    const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
    // From a directory of no local stack: a running npm start's .local/demo.json would otherwise be used.
    try {
      const { stdout, stderr } = await promisify(execFile)(tsx, [join(process.cwd(), 'bin', 'admin.ts'), 'key', ...args], {
        env: { ...process.env, ...env, NODE_OPTIONS: '' },
        cwd: tmpdir(),
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  test('usage errors exit 2 with a clear message, before any connection', async () => {
    const noDb = await run(['list', '--workspace', 'acme'], { DATABASE_URL: '', ADMIN_FUNCTION: '' });
    expect(noDb.code).toBe(2);
    expect(noDb.stderr).toContain('set DATABASE_URL');
    const badExpiry = await run(
      ['create', '--workspace', 'acme', '--creator', owner, '--name', 'x', '--scope', 'workspace', '--expires', '30'],
      {
        DATABASE_URL: 'postgres://127.0.0.1:1/none',
      },
    );
    expect(badExpiry.code).toBe(2);
    expect(badExpiry.stderr).toContain('--expires must be 90 or 365');
    const unknown = await run(['create', '--colour', 'blue'], {});
    expect(unknown.code).toBe(2);
  }, 30_000);
});
