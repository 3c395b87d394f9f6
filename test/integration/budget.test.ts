import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { meSchema } from '#shared/reads/identity/me.js';
import { reads } from '#shared/reads/registry.js';
import { secondsToMinuteEnd } from '#shared/store/budget.js';
import type { LocalApi } from '../../local/stack.js';
import { freshTableName } from '../../local/stack.js';
import type { LocalStore } from '../../local/stores.js';
import { ZERO_PLAN_ANALYSIS, ZERO_PLAN_SECRET } from '../fixtures/zero-plan.js';
import { parseToolError, rpc, toolCall } from '../mcp/support.js';
import { awayFromMinuteEdge, budgetItems, call, expectError, expectServed, manifest, startTestApi } from '../support/api.js';
import { startOwnEmbeddedStore } from '../support/own-store.js';

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
      expect(seen).toEqual([
        [4, 0],
        [3, 0],
        [2, 0],
        [1, 0],
        [0, 1],
      ]);
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

/**
 * MCP under a ceiling of 0: listing the tools is free, so served; a tools/call is refused as a tool result
 * that states the seconds to wait, with the budget headers of the refusal.
 */
async function expectMcpRefused(api: LocalApi, key: string): Promise<void> {
  const list = await rpc(api, key, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
  expect(list.status).toBe(200);
  expect(list.body.result.tools.length).toBe(reads.length);
  const refused = await rpc(api, key, toolCall('get_me', {}));
  expect(refused.status).toBe(200);
  expect([refused.headers.get('x-ratelimit-limit'), refused.headers.get('x-ratelimit-remaining')]).toEqual(['0', '0']);
  const reset = Number(refused.headers.get('x-ratelimit-reset'));
  expect(reset).toBeGreaterThanOrEqual(1);
  const { error, line, rate_limit } = parseToolError(refused.body.result);
  expect(error.code).toBe('rate_limited');
  expect(rate_limit).toEqual({ per_minute: 0, remaining: 0, reset_after_seconds: reset });
  expect(line).toContain(`Retry in ${reset} seconds. Calls left this minute: 0 of 0.`);
}

describe('a plan ceiling of 0: every call refused', () => {
  test('REST answers 429 with limit 0, remaining 0, reset = Retry-After = seconds to the minute end, MCP a rate_limited result; no counter is written', async () => {
    const table = freshTableName();
    const api = await startTestApi({ BUDGET_TABLE: table, PLAN_CEILINGS: JSON.stringify({ growth: 0 }) });
    try {
      await awayFromMinuteEdge(10);
      for (const path of ['/me', '/analyses', `/analyses/${manifest.analyses.collected}/metrics`, '/me']) {
        const before = secondsToMinuteEnd(new Date());
        const reply = await call(api, path, manifest.keys.workspace);
        const after = secondsToMinuteEnd(new Date());
        expectError(reply, 429, 'rate_limited', { budget: true });
        expect(reply.headers.get('x-ratelimit-limit')).toBe('0');
        expect(reply.headers.get('x-ratelimit-remaining')).toBe('0');
        const reset = Number(reply.headers.get('x-ratelimit-reset'));
        expect(reply.headers.get('retry-after')).toBe(String(reset));
        expect(reset).toBeLessThanOrEqual(before);
        expect(reset).toBeGreaterThanOrEqual(after);
      }
      await expectMcpRefused(api, manifest.keys.workspace);
      // Refused before any write: the table holds no counter for the workspace.
      expect(await budgetItems(table)).toBe(0);
    } finally {
      await api.close();
    }
  });
});

describe('a plan ceiling of 0 in the plans table itself (calls_per_minute = 0, no PLAN_CEILINGS)', () => {
  test('REST answers 429 with limit 0 from the first call on, MCP a rate_limited result; no counter is written', async () => {
    const table = freshTableName();
    const api = await startTestApi({ BUDGET_TABLE: table, PLAN_CEILINGS: '' });
    try {
      for (const path of ['/me', '/analyses', `/analyses/${ZERO_PLAN_ANALYSIS}/metrics`, '/me']) {
        const reply = await call(api, path, ZERO_PLAN_SECRET);
        expectError(reply, 429, 'rate_limited', { budget: true });
        expect([reply.headers.get('x-ratelimit-limit'), reply.headers.get('x-ratelimit-remaining')]).toEqual(['0', '0']);
        expect(reply.headers.get('retry-after')).toBe(reply.headers.get('x-ratelimit-reset'));
        expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      await expectMcpRefused(api, ZERO_PLAN_SECRET);
      expect(await budgetItems(table)).toBe(0);
    } finally {
      await api.close();
    }
  });
});

describe('faults fail closed: nothing is served', () => {
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

  test('reach check failing for want of a grant (42501): nothing is served; a configuration fault is 500 internal_error', async () => {
    // A separate real PostgreSQL (embedded) where the service role lost its read on members. Not
    // rate_limit_unavailable: that code says "transient", and a missing grant stays missing until fixed.
    const store: LocalStore = await startOwnEmbeddedStore((db) =>
      db.query('REVOKE SELECT ON members FROM geo_reader').then(() => undefined),
    );
    const api = await startTestApi({ DATABASE_URL: store.readerUrl });
    try {
      const reply = await call(api, '/analyses', store.manifest!.keys.workspace);
      expectError(reply, 500, 'internal_error', { budget: false });
      expect(reply.text).not.toContain(store.manifest!.analyses.collected);
    } finally {
      await api.close();
      await store.close();
    }
  });
});
