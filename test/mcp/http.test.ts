import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { parseConfig } from '#shared/config/service.js';
import { INVALID_CALL } from '#shared/mcp/handler.js';
import type { LocalApi } from '../harness/stack.js';
import { awayFromMinuteEdge, call, expectError, manifest, startTestApi } from '../support/api.js';
import { connect, rpc, toolCall } from './support.js';

const key = () => manifest.keys.workspace;

let api: LocalApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** A JSON-RPC error reply: HTTP status, JSON-RPC code, never a 500 and never a stack. */
function expectRpcError(reply: { status: number; body: any; text: string }, status: number, code: number): void {
  expect({ status: reply.status, code: reply.body?.error?.code }).toEqual({ status, code });
  expect(reply.body.jsonrpc).toBe('2.0');
  expect(reply.text).not.toMatch(/at .*\.(ts|js):\d+/);
}

describe('the HTTP chain in front of the MCP server', () => {
  test('no key → 401 unauthorized, plan without API → 403, both without budget headers', async () => {
    expectError(await rpc(api, null, toolCall('get_me', {})), 401, 'unauthorized', { budget: false });
    expectError(await rpc(api, manifest.keys.revoked, toolCall('get_me', {})), 401, 'key_revoked', { budget: false });
    expectError(await rpc(api, manifest.keys.plan_without_api, toolCall('get_me', {})), 403, 'plan_required', { budget: false });
  });

  test('a 401 carries WWW-Authenticate: Bearer (RFC 6750) naming the cause, on MCP and REST alike', async () => {
    const challenges = {
      unauthorized: /^Bearer realm="geo-measurement-api", error="invalid_token", error_description="unauthorized: [^"\\]+"$/,
      key_revoked: /^Bearer realm="geo-measurement-api", error="invalid_token", error_description="key_revoked: [^"\\]+"$/,
    };
    const cases: Array<[string | null, keyof typeof challenges]> = [
      [null, 'unauthorized'],
      ['geo_live_' + 'x'.repeat(40), 'unauthorized'],
      [manifest.keys.revoked, 'key_revoked'],
      [manifest.keys.expired, 'key_revoked'],
      [manifest.keys.creator_removed, 'key_revoked'],
    ];
    for (const [k, code] of cases) {
      for (const reply of [await rpc(api, k, toolCall('get_me', {})), await call(api, '/me', k)]) {
        expectError(reply, 401, code, { budget: false });
        expect(reply.headers.get('www-authenticate')).toMatch(challenges[code]);
        // error_description allows printable ASCII but " and \ (RFC 6750 §3).
        expect(reply.headers.get('www-authenticate')).toMatch(/^[\x20-\x7e]+$/);
      }
    }
    const served = await call(api, '/me', key());
    expect(served.headers.get('www-authenticate')).toBeNull();
  });

  test('where an OAuth client goes after a 401, a 404 says there is no OAuth, and whether a key was sent', async () => {
    const paths = [
      ['GET', '/.well-known/oauth-protected-resource/api/v1/mcp'],
      ['GET', '/.well-known/oauth-protected-resource'],
      ['GET', '/.well-known/oauth-authorization-server'],
      ['GET', '/.well-known/openid-configuration'],
      ['POST', '/register'],
      ['GET', '/authorize'],
      ['POST', '/token'],
    ];
    for (const [method, path] of paths) {
      for (const [k, says] of [
        [null, 'this client sent none'],
        [manifest.keys.revoked, 'the key this client sent was refused'],
      ] as const) {
        const res = await fetch(`${api.url}${path}`, { method, headers: k ? { authorization: `Bearer ${k}` } : {} });
        const body = (await res.json()) as { error: { code: string; message: string } };
        expect({ path, status: res.status, code: body.error.code }).toEqual({ path, status: 404, code: 'not_found' });
        expect(body.error.message).toContain('No OAuth here');
        expect(body.error.message).toContain(says);
      }
    }
    const other = (await (await fetch(`${api.url}/.well-known/security.txt`)).json()) as { error: { message: string } };
    expect(other.error.message).toBe('No such endpoint.');
  });

  test('GET, DELETE and OPTIONS → 405 in the error envelope with Allow: POST, before any key check', async () => {
    for (const method of ['GET', 'DELETE', 'OPTIONS']) {
      for (const key of [null, manifest.keys.workspace]) {
        const reply = await call(api, '/mcp', key, { method });
        expectError(reply, 405, 'method_not_allowed', { budget: false });
        expect(reply.headers.get('allow')).toBe('POST');
        expect(reply.body.error.message).toBe('This endpoint only answers POST.');
      }
    }
  });

  test('a served request carries the budget headers; a notification is 202', async () => {
    const reply = await rpc(api, key(), { jsonrpc: '2.0', id: 7, method: 'tools/list' });
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe(7);
    expect(reply.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const note = await rpc(api, key(), { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(note.status).toBe(202);
  });

  test('stateless: a tools/call needs no initialize and no session', async () => {
    const reply = await rpc(api, key(), toolCall('get_me', {}));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('mcp-session-id')).toBeNull();
    expect(reply.body.result.structuredContent.key.prefix).toBe(key().slice(0, 12));
    expect(reply.body.result._meta.rate_limit.limit).toBe(Number(reply.headers.get('x-ratelimit-limit')));
  });
});

describe('malformed input: a JSON-RPC error or an isError result, never a 500', () => {
  test('not JSON → 400 parse error (-32700)', async () => {
    expectRpcError(await rpc(api, key(), '{"jsonrpc": "2.0", "id": 1, "method": '), 400, -32700);
    expectRpcError(await rpc(api, key(), ''), 400, -32700);
  });

  test('JSON, but not JSON-RPC → 400 (-32700)', async () => {
    expectRpcError(await rpc(api, key(), { hello: 'world' }), 400, -32700);
    expectRpcError(await rpc(api, key(), 'null'), 400, -32700);
    expectRpcError(await rpc(api, key(), { jsonrpc: '1.0', id: 1, method: 'tools/list' }), 400, -32700);
  });

  test('a batch → 400 (-32600): one request, one call of the budget', async () => {
    expectRpcError(await rpc(api, key(), [toolCall('get_me', {}, 1), toolCall('get_me', {}, 2)]), 400, -32600);
  });

  test('an unknown method → JSON-RPC error -32601', async () => {
    const reply = await rpc(api, key(), { jsonrpc: '2.0', id: 3, method: 'tools/destroy' });
    expect(reply.status).toBe(200);
    expect(reply.body.error.code).toBe(-32601);
  });

  test('an unknown tool → JSON-RPC error -32602', async () => {
    const reply = await rpc(api, key(), toolCall('drop_tables', {}));
    expect(reply.status).toBe(200);
    expect(reply.body.error.code).toBe(-32602);
  });

  test('an unknown tool: the message is said once, without the SDK\'s "MCP error -32602:" prefix', async () => {
    const reply = await rpc(api, key(), toolCall('drop_tables', {}));
    expect(reply.body.error).toEqual({ code: -32602, message: 'Unknown tool: drop_tables. Call tools/list for the available tools.' });
  });

  test('a malformed tools/call → JSON-RPC error -32602 with the documented message, not a zod issue dump', async () => {
    const malformed = [
      { name: 'list_analyses', arguments: 'analysis' },
      { name: 'list_analyses', arguments: 42 },
      { name: 'list_analyses', arguments: [1, 2] },
      { name: 42, arguments: {} },
      { arguments: {} },
    ];
    for (const [i, params] of malformed.entries()) {
      const reply = await rpc(api, key(), { jsonrpc: '2.0', id: 40 + i, method: 'tools/call', params });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ jsonrpc: '2.0', id: 40 + i, error: { code: -32602, message: INVALID_CALL } });
    }
  });

  test.each(['__proto__', 'constructor', 'prototype'])(
    'an argument named %s is refused as REST refuses it: invalid_request naming it',
    async (name) => {
      // Raw JSON: an object literal would not carry "__proto__" as a key.
      const body = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_analyses","arguments":{"${name}":{"limit":1}}}}`;
      const reply = await rpc(api, key(), body);
      expect(reply.body.result.isError).toBe(true);
      expect(JSON.parse(reply.body.result.content[0].text).error).toMatchObject({ code: 'invalid_request', param: name });
      const rest = await call(api, `/analyses?${name}=1`, key());
      expectError(rest, 422, 'invalid_request', { param: name });
    },
  );

  test('wrong argument types → isError with invalid_request and param', async () => {
    const reply = await rpc(api, key(), toolCall('list_analyses', { limit: 'ten' }));
    expect(reply.status).toBe(200);
    expect(reply.body.result.isError).toBe(true);
    const body = JSON.parse(reply.body.result.content[0].text);
    expect(body.error).toMatchObject({ code: 'invalid_request', param: 'limit', request_id: reply.headers.get('x-request-id') });
  });

  test('a body over 1 MB → 413 JSON-RPC error, before it is parsed', async () => {
    const big = JSON.stringify(toolCall('get_me', { padding: 'x'.repeat(1024 * 1024) }));
    expectRpcError(await rpc(api, key(), big), 413, -32600);
  });

  test('wrong Accept → 406, wrong Content-Type → 415 (the SDK transport, still a JSON-RPC error)', async () => {
    expectRpcError(await rpc(api, key(), toolCall('get_me', {}), { accept: 'application/json' }), 406, -32000);
    expectRpcError(await rpc(api, key(), toolCall('get_me', {}), { 'content-type': 'text/plain' }), 415, -32000);
  });
});

describe('one budget for REST and MCP', () => {
  test('the small_budget workspace gets exactly 5 successes across both, then 429 on both', async () => {
    const fresh = await startTestApi();
    try {
      await awayFromMinuteEdge(20);
      const k = manifest.keys.small_budget;
      const served = [
        await call(fresh, '/me', k),
        await rpc(fresh, k, toolCall('get_me', {})),
        await call(fresh, '/analyses', k),
        await rpc(fresh, k, { jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        await rpc(fresh, manifest.keys.small_budget_2, toolCall('list_analyses', { limit: 1 })),
      ];
      expect(served.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(served.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['4', '3', '2', '1', '0']);
      expect(served[4]!.body.result._meta.rate_limit).toMatchObject({ limit: 5, remaining: 0 });

      const restRefused = await call(fresh, '/me', k);
      expectError(restRefused, 429, 'rate_limited', { budget: true });
      const mcpRefused = await rpc(fresh, k, toolCall('get_me', {}));
      expectError(mcpRefused, 429, 'rate_limited', { budget: true });
      expect(Number(mcpRefused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(mcpRefused.headers.get('retry-after')).toBe(mcpRefused.headers.get('x-ratelimit-reset'));
    } finally {
      await fresh.close();
    }
  });

  test('an SDK client session spends one call per HTTP request (initialize, initialized, then each call)', async () => {
    const fresh = await startTestApi();
    try {
      await awayFromMinuteEdge(20);
      const client = await connect(fresh, manifest.keys.small_budget);
      try {
        const me = (await client.callTool({ name: 'get_me', arguments: {} })) as unknown as {
          _meta: { rate_limit: { remaining: number } };
        };
        // initialize (4 left), notifications/initialized (3), tools/call (2). The GET the client tries for a
        // stream is refused with 405 before the key is checked, so it costs nothing.
        expect(me._meta.rate_limit.remaining).toBe(2);
      } finally {
        await client.close();
      }
    } finally {
      await fresh.close();
    }
  });
});

describe('Origin (MCP transport spec: DNS rebinding)', () => {
  const page = (origin: string) => ({ origin });
  const foreign = [
    'https://evil.example',
    'http://localhost.evil.example',
    'http://127.0.0.1.nip.io',
    'null',
    '',
    'not a url',
    'file:///etc/passwd',
  ];

  test('an Origin that is not allowed → 403 origin_not_allowed, before the key: no budget spent, whatever the key', async () => {
    for (const origin of foreign) {
      for (const k of [null, manifest.keys.revoked, key()]) {
        const reply = await rpc(api, k, toolCall('get_me', {}), page(origin));
        expectError(reply, 403, 'origin_not_allowed', { budget: false });
      }
    }
    const me = await call(api, '/me', key());
    const before = Number(me.headers.get('x-ratelimit-remaining'));
    await rpc(api, key(), toolCall('get_me', {}), page('https://evil.example'));
    const after = Number((await call(api, '/me', key())).headers.get('x-ratelimit-remaining'));
    expect(before - after).toBe(1); // the /me call itself, not the refused one
  });

  test('no Origin (servers, CLIs, desktop bridges), and loopback origins by default, are served', async () => {
    expect((await rpc(api, key(), toolCall('get_me', {}))).status).toBe(200);
    for (const origin of ['http://localhost:6274', 'http://127.0.0.1:3000', 'http://[::1]:8080', 'https://localhost']) {
      expect((await rpc(api, key(), toolCall('get_me', {}), page(origin))).status).toBe(200);
    }
  });

  test('MCP_ALLOWED_ORIGINS lets the listed origins through, exactly (scheme, host, port); without loopback, localhost is refused', async () => {
    const allowed = await startTestApi({ MCP_ALLOWED_ORIGINS: 'https://app.example.com, http://tools.example.com:8080' });
    try {
      for (const origin of ['https://app.example.com', 'https://APP.example.com:443', 'http://tools.example.com:8080']) {
        expect((await rpc(allowed, key(), toolCall('get_me', {}), page(origin))).status).toBe(200);
      }
      for (const origin of [
        'http://app.example.com',
        'https://app.example.com:8443',
        'https://evil.app.example.com',
        'http://tools.example.com',
        'http://localhost:6274',
      ]) {
        expectError(await rpc(allowed, key(), toolCall('get_me', {}), page(origin)), 403, 'origin_not_allowed', { budget: false });
      }
      // REST reads are not concerned: the check guards the MCP endpoint.
      expect((await call(allowed, '/me', key(), { headers: page('https://evil.example') })).status).toBe(200);
    } finally {
      await allowed.close();
    }
  });

  test('MCP_ALLOWED_ORIGINS: loopback by default, empty for none; anything but origins is refused at start', () => {
    const base = { CURSOR_SECRET: 'x'.repeat(32), DATABASE_URL: 'postgres://x@127.0.0.1/x' };
    const parsed = (v?: string) => {
      const o = parseConfig(v === undefined ? base : { ...base, MCP_ALLOWED_ORIGINS: v }).MCP_ALLOWED_ORIGINS;
      return { origins: [...o.origins], loopback: o.loopback };
    };
    expect(parsed()).toEqual({ origins: [], loopback: true });
    expect(parsed('')).toEqual({ origins: [], loopback: false });
    expect(parsed('https://A.example.com:443/, loopback, http://localhost:6274')).toEqual({
      origins: ['https://a.example.com', 'http://localhost:6274'],
      loopback: true,
    });
    for (const bad of [
      '*',
      'app.example.com',
      'https://app.example.com/path',
      'ftp://x.example',
      'https://u:p@x.example',
      'https://x.example?q=1',
    ]) {
      expect(() => parseConfig({ ...base, MCP_ALLOWED_ORIGINS: bad })).toThrow(/MCP_ALLOWED_ORIGINS/);
    }
  });
});
