import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { LocalApi } from '../../shared/local/stack.js';
import { meSchema } from '../../shared/reads/identity/me.js';
import { startStore, type LocalStore } from '../../shared/local/stores.js';
import { awayFromMinuteEdge, call, expectError, expectServed, manifest, startTestApi } from '../support/api.js';

describe('the budget: one atomic counter per workspace per minute', () => {
  let api: LocalApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  test('30 concurrent calls of a 5-per-minute workspace serve exactly 5', async () => {
    await awayFromMinuteEdge(20);
    const replies = await Promise.all(Array.from({ length: 30 }, () => call(api, '/me', manifest.keys.small_budget)));
    const served = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 429);
    expect([served.length, refused.length]).toEqual([5, 25]);
    const remaining = served.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort();
    expect(remaining).toEqual([0, 1, 2, 3, 4]);
    for (const r of served) {
      expect(r.headers.get('x-ratelimit-limit')).toBe('5');
      const left = Number(r.headers.get('x-ratelimit-remaining'));
      expect(Number(r.headers.get('x-ratelimit-reset')) > 0).toBe(left === 0);
    }
    for (const r of refused) {
      expectError(r, 429, 'rate_limited', { budget: true });
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
      const retryAfter = Number(r.headers.get('retry-after'));
      expect(String(retryAfter)).toBe(r.headers.get('x-ratelimit-reset'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
  });

  test('remaining counts down exactly, reset is 0 while budget remains, two keys share one budget', async () => {
    const fresh = await startTestApi();
    try {
      await awayFromMinuteEdge(20);
      const seen: Array<[number, number]> = [];
      for (const label of ['small_budget', 'small_budget_2', 'small_budget', 'small_budget_2', 'small_budget'] as const) {
        const me = expectServed(await call(fresh, '/me', manifest.keys[label]), meSchema);
        seen.push([me.rate_limit.remaining, me.rate_limit.reset_after_seconds === 0 ? 0 : 1]);
      }
      expect(seen).toEqual([[4, 0], [3, 0], [2, 0], [1, 0], [0, 1]]);
      expectError(await call(fresh, '/me', manifest.keys.small_budget_2), 429, 'rate_limited', { budget: true });
      expect((await call(fresh, '/me', manifest.keys.workspace)).status).toBe(200);
    } finally {
      await fresh.close();
    }
  });

  test('refused and invalid calls still count: a 422 spends budget', async () => {
    const fresh = await startTestApi();
    try {
      await awayFromMinuteEdge(20);
      const bad = await call(fresh, '/analyses?limit=0', manifest.keys.small_budget);
      expectError(bad, 422, 'invalid_request', { param: 'limit', budget: true });
      expect(bad.headers.get('x-ratelimit-remaining')).toBe('4');
    } finally {
      await fresh.close();
    }
  });
});

describe('faults fail closed with 503 rate_limit_unavailable', () => {
  test('budget store unreachable: nothing is served', async () => {
    const api = await startTestApi({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', BUDGET_TIMEOUT_MS: '300' });
    try {
      for (const path of ['/me', '/analyses', `/analyses/${manifest.analyses.collected}`]) {
        const reply = await call(api, path, manifest.keys.workspace);
        expectError(reply, 503, 'rate_limit_unavailable', { budget: false });
        expect(reply.text).not.toContain(manifest.analyses.collected);
      }
    } finally {
      await api.close();
    }
  });

  test('reach check failing (the store refuses the membership read): nothing is served', async () => {
    // A separate real PostgreSQL (embedded) where the service role lost its read on members.
    const store: LocalStore = await startStore({ extra: (db) => db.query('REVOKE SELECT ON members FROM geo_reader').then(() => undefined) });
    const api = await startTestApi({ DATABASE_URL: store.readerUrl });
    try {
      const reply = await call(api, '/analyses', store.manifest!.keys.workspace);
      expectError(reply, 503, 'rate_limit_unavailable', { budget: false });
    } finally {
      await api.close();
      await store.close();
    }
  });
});
