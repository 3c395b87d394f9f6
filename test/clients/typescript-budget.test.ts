import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createClient, type RetryEvent } from '../../clients/typescript/src/index.js';
import type { LocalApi } from '../../local/stack.js';
import { awayFromMinuteEdge, manifest, startTestApi } from '../support/api.js';

/**
 * The small-budget demo key (5 calls a minute, shared with small_budget_2): once the minute's calls are
 * spent, the client waits the Retry-After the API states and then succeeds. In a file of its own, since the
 * wait runs to the end of the budget's minute (up to a minute) and jest runs files side by side.
 * @starts-first: its wait overlaps the other files' work (test/support/sequencer.mjs).
 */
describe('the client under a spent budget', () => {
  let api: LocalApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  test('the sixth call of a 5-per-minute key waits Retry-After, then succeeds; the wait is told first', async () => {
    await awayFromMinuteEdge(20);
    const events: RetryEvent[] = [];
    const geo = createClient({
      apiKey: manifest.keys.small_budget,
      baseUrl: api.baseUrl,
      maxRetries: 1,
      onRetry: (e) => events.push(e),
    });
    const spender = createClient({ apiKey: manifest.keys.small_budget_2, baseUrl: api.baseUrl, maxRetries: 0 });
    for (let i = 0; i < 5; i++) await spender.getMe();
    expect(spender.rateLimit).toMatchObject({ limit: 5, remaining: 0 });

    const me = await geo.getMe();
    expect(events.length).toBe(1);
    const [event] = events;
    expect(event!.error.code).toBe('rate_limited');
    expect(event!.error.status).toBe(429);
    const retryAfter = event!.error.retryAfter!;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(event!.error.rateLimit).toEqual({ limit: 5, remaining: 0, resetSeconds: retryAfter });
    // The wait told to the hook is the Retry-After the API stated (plus the client's small margin).
    expect(event!.delayMs).toBe(retryAfter * 1000 + 50);
    // Served in the next minute: a fresh budget, the first call of it.
    expect(me.rate_limit).toEqual({ per_minute: 5, remaining: 4, reset_after_seconds: 0 });
    expect(geo.rateLimit).toEqual({ limit: 5, remaining: 4, resetSeconds: 0 });
  }, 120_000);
});
