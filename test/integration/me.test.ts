import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { meSchema } from '#shared/reads/identity/me.js';
import type { LocalApi } from '../../local/stack.js';
import { call, expectServed, manifest, startTestApi } from '../support/api.js';

let api: LocalApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('GET /me', () => {
  test('states every field of docs/contract.md#key-identity for a workspace key', async () => {
    const me = expectServed(await call(api, '/me', manifest.keys.workspace), meSchema);
    expect(me.key.scope).toBe('workspace');
    expect(me.key.brand).toBeNull();
    expect(me.key.pinned_analysis).toBeNull();
    expect(manifest.keys.workspace.startsWith(me.key.prefix)).toBe(true);
    expect(me.key.prefix.length).toBeLessThan(manifest.keys.workspace.length);
    expect(JSON.stringify(me)).not.toContain(manifest.keys.workspace);
    expect(me.workspace.id).toBe(manifest.workspaces.acme);
    expect(me.plan.key).toBe('growth');
    expect(me.rate_limit.reset_after_seconds).toBe(0);
    expect(new Date(me.key.expires_at).getTime()).toBeGreaterThan(Date.now());
    expect(Date.now() - new Date(me.key.last_used_at).getTime()).toBeLessThan(120_000);
  });

  test('rate_limit mirrors the budget headers of the same response', async () => {
    const reply = await call(api, '/me', manifest.keys.workspace);
    const me = expectServed(reply, meSchema);
    expect(String(me.rate_limit.per_minute)).toBe(reply.headers.get('x-ratelimit-limit'));
    expect(String(me.rate_limit.remaining)).toBe(reply.headers.get('x-ratelimit-remaining'));
    expect(String(me.rate_limit.reset_after_seconds)).toBe(reply.headers.get('x-ratelimit-reset'));
  });

  test('reach counts what each key reaches now', async () => {
    const reach = async (label: keyof typeof manifest.keys) =>
      expectServed(await call(api, '/me', manifest.keys[label]), meSchema).reach.analyses;
    const all = await reach('workspace');
    const brand = await reach('brand');
    expect(all).toBeGreaterThanOrEqual(4);
    expect(brand).toBeGreaterThan(0);
    expect(brand).toBeLessThan(all);
    expect(await reach('analysis')).toBe(1);
    expect(await reach('empty_scope')).toBe(0);
  });

  test('a brand key names its brand, an analysis key its analysis', async () => {
    const brand = expectServed(await call(api, '/me', manifest.keys.brand), meSchema);
    expect(brand.key.scope).toBe('brand');
    expect(brand.key.brand).toBe('Acme');
    const one = expectServed(await call(api, '/me', manifest.keys.analysis), meSchema);
    expect(one.key.scope).toBe('analysis');
    expect(one.key.pinned_analysis).toBe(manifest.analyses.collected);
  });
});
