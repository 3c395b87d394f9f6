import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { listGroupPrompts } from '#shared/reads/figures/groups.js';
import { listAnalyses } from '#shared/reads/identity/analyses.js';
import type { LocalApi } from '../../local/stack.js';
import { parseToolError } from '../mcp/support.js';
import { rawRequest } from '../reliability/support/raw-http.js';
import { call, expectError, expectServed, manifest, startTestApi } from '../support/api.js';

let api: LocalApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());
const key = () => manifest.keys.workspace;

/** Forms a JavaScript Number() would turn into an integer, each refused by docs/contract.md#common-parameters rule 1. */
const NOT_INTEGERS = [
  '1.0',
  '5.',
  '.5',
  '0.9999999999999999999',
  '1.00000000000000000001',
  '+5',
  '-0',
  '1E1',
  '1e0',
  '9007199254740993',
  '10000000000000000',
  '٣',
  '５',
];

describe('integer parameters take digits only (docs/contract.md#common-parameters rule 1)', () => {
  test.each(NOT_INTEGERS)('limit=%s → 422 invalid_request naming limit', async (form) => {
    const reply = await call(api, `/analyses?limit=${encodeURIComponent(form)}`, key());
    expectError(reply, 422, 'invalid_request', { param: 'limit', budget: true });
    expect(reply.body.error.message).toContain('integer');
  });

  test.each(NOT_INTEGERS)('offset=%s → 422 invalid_request naming offset', async (form) => {
    const reply = await call(api, `/analyses/${manifest.analyses.collected}/groups/none/prompts?offset=${encodeURIComponent(form)}`, key());
    expectError(reply, 422, 'invalid_request', { param: 'offset', budget: true });
  });

  test('the canonical forms at the bounds are served', async () => {
    expectServed(await call(api, '/analyses?limit=1', key()), listAnalyses.output);
    expectServed(await call(api, '/analyses?limit=200', key()), listAnalyses.output);
    const page = expectServed(
      await call(api, `/analyses/${manifest.analyses.collected}/groups/none/prompts?offset=0&limit=200`, key()),
      listGroupPrompts.output,
    );
    expect(page.next_cursor).toBeNull();
    expectServed(
      await call(api, `/analyses/${manifest.analyses.collected}/groups/none/prompts?offset=100000`, key()),
      listGroupPrompts.output,
    );
    expectError(
      await call(api, `/analyses/${manifest.analyses.collected}/groups/none/prompts?offset=100001`, key()),
      422,
      'invalid_request',
      { param: 'offset' },
    );
  });
});

describe('a name the caller sent is echoed in part', () => {
  test('an unknown query key of 4,000 characters: named by its first 80 in the message and param', async () => {
    const name = 'k'.repeat(4000);
    const reply = await call(api, `/analyses?${name}=1`, key());
    expectError(reply, 422, 'invalid_request', { param: `${'k'.repeat(80)}…` });
    expect(reply.body.error.message).toBe(`Unknown query parameter "${'k'.repeat(80)}…".`);
  });
});

describe('the query separator is the first ? only', () => {
  test('??limit=5 has the key "?limit": unknown, named', async () => {
    for (const target of [
      '/analyses??limit=5',
      '/analyses??limit=5&limit=5',
      `/analyses/${manifest.analyses.collected}/metrics??window=7d`,
    ]) {
      const reply = await rawRequest(api.url, { target: `/api/v1${target}`, headers: [['Authorization', `Bearer ${key()}`]] });
      expect({ status: reply.status, code: reply.body?.error?.code, param: reply.body?.error?.param }).toEqual({
        status: 422,
        code: 'invalid_request',
        param: target.includes('window') ? '?window' : '?limit',
      });
    }
  });
});

describe('MCP arguments are JSON values: an integer is judged by its value (docs/decisions.md, "Number forms in MCP")', () => {
  const rpc = (raw: string) =>
    rawRequest(api.url, {
      method: 'POST',
      target: '/api/v1/mcp',
      headers: [
        ['Authorization', `Bearer ${key()}`],
        ['Content-Type', 'application/json'],
        ['Accept', 'application/json, text/event-stream'],
      ],
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_analyses","arguments":{"limit":${raw}}}}`,
    });

  test.each(['1', '1.0', '2e0', '200'])('limit: %s is the integer it denotes → served', async (raw) => {
    const reply = await rpc(raw);
    expect(reply.status).toBe(200);
    expect(reply.body.result.isError).toBeUndefined();
    expect(reply.body.result.structuredContent.items.length).toBeLessThanOrEqual(Number(raw));
  });

  test.each(['1.5', '0.5', '-1', '0', '201', '"5"', 'null', 'true', '[5]', '{"v":5}', '9007199254740993', '1e400'])(
    'limit: %s → isError invalid_request naming limit',
    async (raw) => {
      const reply = await rpc(raw);
      expect(reply.status).toBe(200);
      const { error } = parseToolError(reply.body.result);
      expect({ code: error.code, param: error.param }).toEqual({ code: 'invalid_request', param: 'limit' });
    },
  );
});
