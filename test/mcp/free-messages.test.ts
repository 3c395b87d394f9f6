import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { MAX_FREE_BODY_BYTES } from '#shared/mcp/incoming.js';
import { FREE_MESSAGES_FLOOR, freeMessageCeiling } from '#shared/store/free-messages.js';
import type { LocalApi } from '../../local/stack.js';
import { awayFromMinuteEdge, expectError, manifest, startTestApi } from '../support/api.js';
import { connect, parseToolError, rpc, toolCall } from './support.js';

/**
 * The messages that spend no budget (handshake, listings, ping, notifications, prompts, the resource) are
 * bounded per key and minute (shared/store/free-messages.ts): past the bound, 429 rate_limited in the
 * error envelope, with the seconds in the message and the bound in the rate headers; and each must be small (MAX_FREE_BODY_BYTES).
 */
const TINY_PLAN_CALLS = 5; // the demo's tiny plan, the small_budget key's

let api: LocalApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('the bound on free messages', () => {
  test(`a key of a plan of ${TINY_PLAN_CALLS} calls a minute may send ${FREE_MESSAGES_FLOOR} free messages, then gets 429 rate_limited; tools/call still spends the budget`, async () => {
    expect(freeMessageCeiling(TINY_PLAN_CALLS)).toBe(FREE_MESSAGES_FLOOR);
    const fresh = await startTestApi();
    try {
      await awayFromMinuteEdge(20);
      const k = manifest.keys.small_budget;
      const messages = [
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 3, method: 'prompts/list' },
      ];
      for (let i = 0; i < FREE_MESSAGES_FLOOR; i++) {
        const reply = await rpc(fresh, k, messages[i % messages.length]);
        expect({ i, status: reply.status }).toEqual({ i, status: i % messages.length === 2 ? 202 : 200 });
      }
      for (const message of messages) {
        const refused = await rpc(fresh, k, message);
        expectError(refused, 429, 'rate_limited', { budget: true });
        const seconds = Number(refused.headers.get('retry-after'));
        expect(seconds).toBeGreaterThanOrEqual(1);
        // As every 429: the three rate headers beside Retry-After, here the bound that refused it.
        expect({
          limit: refused.headers.get('x-ratelimit-limit'),
          remaining: refused.headers.get('x-ratelimit-remaining'),
          reset: refused.headers.get('x-ratelimit-reset'),
        }).toEqual({ limit: String(FREE_MESSAGES_FLOOR), remaining: '0', reset: String(seconds) });
        expect(refused.body.error.message).toBe(
          `This key sent its ${FREE_MESSAGES_FLOOR} protocol messages of the minute (handshakes, listings, pings, prompts, calls refused before they read data), which spend no call budget but are bounded. Retry in ${seconds} seconds.`,
        );
      }
      // Another key of the same workspace has its own bound.
      expect((await rpc(fresh, manifest.keys.small_budget_2, messages[0])).status).toBe(200);
      // A tool call is not a free message: it spends the budget, which is untouched.
      const served = await rpc(fresh, k, toolCall('get_me', {}));
      expect(served.body.result.structuredContent.rate_limit.remaining).toBe(TINY_PLAN_CALLS - 1);
    } finally {
      await fresh.close();
    }
  });

  test('a tools/call or completion that ends before it spends counts as a free message: past the bound, 429, the budget untouched', async () => {
    const fresh = await startTestApi();
    try {
      await awayFromMinuteEdge(20);
      const k = manifest.keys.small_budget;
      const complete = (ref: Record<string, unknown>, argument: Record<string, unknown>, id: number) => ({
        jsonrpc: '2.0',
        id,
        method: 'completion/complete',
        params: { ref, argument },
      });
      // Each answered without reading data, none spending the budget.
      const messages = [
        toolCall('nope', {}),
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 5, arguments: {} } },
        { jsonrpc: '2.0', method: 'tools/call', params: { name: 'get_me', arguments: {} } },
        complete({ type: 'ref/prompt', name: 'weekly_pulse' }, { name: 'window', value: '' }, 4),
        complete({ type: 'ref/resource', uri: 'geo://methodology' }, { name: 'x', value: '' }, 5),
      ];
      const statuses = new Set<number>();
      for (let i = 0; i < FREE_MESSAGES_FLOOR; i++) {
        const reply = await rpc(fresh, k, messages[i % messages.length]);
        expect(reply.headers.get('x-ratelimit-limit')).toBeNull();
        statuses.add(reply.status);
      }
      expect([...statuses].sort()).toEqual([200, 202]);
      for (const message of messages) expectError(await rpc(fresh, k, message), 429, 'rate_limited', { budget: true });
      const served = await rpc(fresh, k, toolCall('get_me', {}));
      expect(served.body.result.structuredContent.rate_limit.remaining).toBe(TINY_PLAN_CALLS - 1);
    } finally {
      await fresh.close();
    }
  });

  test('the budget spent: connecting and listing still work, within the bound', async () => {
    const spent = await startTestApi({ PLAN_CEILINGS: JSON.stringify({ growth: 0 }) });
    try {
      const client = await connect(spent, manifest.keys.workspace);
      try {
        expect((await client.listTools()).tools.length).toBeGreaterThan(0);
        const refused = await client.callTool({ name: 'get_me', arguments: {} });
        expect(parseToolError(refused as Parameters<typeof parseToolError>[0]).error.code).toBe('rate_limited');
      } finally {
        await client.close();
      }
    } finally {
      await spent.close();
    }
  });
});

describe('the bound fails closed', () => {
  test('a counter that does not answer: the free message is refused, 503 rate_limit_unavailable, never served unbounded', async () => {
    const down = await startTestApi({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', BUDGET_TIMEOUT_MS: '300' });
    try {
      for (const message of [
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
      ]) {
        const reply = await rpc(down, manifest.keys.workspace, message);
        expectError(reply, 503, 'rate_limit_unavailable', { budget: false });
        expect(reply.headers.get('retry-after')).toBe('1');
      }
    } finally {
      await down.close();
    }
  });
});

describe('free messages are small', () => {
  const padded = (method: string, bytes: number) => ({
    jsonrpc: '2.0',
    id: 9,
    method,
    params: { _meta: { pad: 'x'.repeat(bytes) } },
  });

  test(`a ping, tools/list or initialize body over ${MAX_FREE_BODY_BYTES} bytes: 413, -32600, one line`, async () => {
    for (const method of ['ping', 'tools/list', 'prompts/list', 'initialize']) {
      const reply = await rpc(api, manifest.keys.workspace, padded(method, MAX_FREE_BODY_BYTES));
      expect(reply.status).toBe(413);
      expect(reply.body).toEqual({
        jsonrpc: '2.0',
        id: 9,
        error: {
          code: -32600,
          message: `Request body over 16 KB: only tools/call and completion/complete carry arguments that need more.`,
        },
      });
    }
    // Under the bound, the same ping is answered.
    expect((await rpc(api, manifest.keys.workspace, padded('ping', 1000))).body.result).toEqual({});
  });

  test('a tools/call over that size is not refused for it (its arguments are checked as REST checks them)', async () => {
    const reply = await rpc(api, manifest.keys.workspace, toolCall('list_analyses', { cursor: 'x'.repeat(MAX_FREE_BODY_BYTES) }));
    expect(reply.status).toBe(200);
    expect(parseToolError(reply.body.result).error.code).toMatch(/^(invalid_request|cursor_expired)$/);
  });
});
