import { connect as connectTcp } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { parseConfig } from '#shared/config/service.js';
import { INVALID_CALL } from '#shared/mcp/refusals.js';
import { reads } from '#shared/reads/registry.js';
import type { LocalApi } from '../../local/stack.js';
import { awayFromMinuteEdge, call, expectError, manifest, startTestApi } from '../support/api.js';
import { connect, parseToolError, rpc, toolCall } from './support.js';

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

  test('GET and DELETE → 405 in the error envelope with Allow: POST, OPTIONS, before any key check', async () => {
    for (const method of ['GET', 'DELETE']) {
      for (const key of [null, manifest.keys.workspace]) {
        const reply = await call(api, '/mcp', key, { method });
        expectError(reply, 405, 'method_not_allowed', { budget: false });
        expect(reply.headers.get('allow')).toBe('POST, OPTIONS');
        expect(reply.body.error.message).toBe('This endpoint only answers POST, OPTIONS.');
      }
    }
  });

  test('tools/list and a notification spend no budget (no budget headers); a tools/call carries them', async () => {
    const reply = await rpc(api, key(), { jsonrpc: '2.0', id: 7, method: 'tools/list' });
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe(7);
    expect(reply.headers.get('x-ratelimit-limit')).toBeNull();
    expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const note = await rpc(api, key(), { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(note.status).toBe(202);
    expect(note.headers.get('x-ratelimit-limit')).toBeNull();
    // Accepted with no content, so no media type; the request id as on every answer.
    expect({ type: note.headers.get('content-type'), body: note.text }).toEqual({ type: null, body: '' });
    expect(note.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const served = await rpc(api, key(), toolCall('get_me', {}));
    expect(served.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });

  test('stateless: a tools/call needs no initialize and no session', async () => {
    const reply = await rpc(api, key(), toolCall('get_me', {}));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('mcp-session-id')).toBeNull();
    expect(reply.body.result.structuredContent.key.prefix).toBe(key().slice(0, 12));
    expect(reply.body.result._meta.rate_limit.per_minute).toBe(Number(reply.headers.get('x-ratelimit-limit')));
    expect(reply.body.result._meta.rate_limit.remaining).toBe(Number(reply.headers.get('x-ratelimit-remaining')));
  });
});

/**
 * A POST whose header bytes are the UTF-8 of the given values, written on a raw socket: fetch takes byte
 * strings only, and node:http refuses characters above U+00FF. HTTP/1.0: the answer is the body as is,
 * then the server closes.
 */
function postRaw(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: any }> {
  const u = new URL(url);
  const head = [`POST ${u.pathname} HTTP/1.0`, `host: ${u.host}`, `content-length: ${Buffer.byteLength(body)}`]
    .concat(Object.entries(headers).map(([k, v]) => `${k}: ${v}`))
    .join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connectTcp(Number(u.port), u.hostname, () => socket.write(Buffer.from(`${head}\r\n\r\n${body}`, 'utf8')));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1]);
      const payload = text.slice(text.indexOf('\r\n\r\n') + 4);
      resolve({ status, body: JSON.parse(payload) });
    });
  });
}

describe('headers it does not use never fail the call', () => {
  test('UTF-8 header values above U+00FF (a city, a user agent with CJK and an emoji) are served', async () => {
    const headers = {
      authorization: `Bearer ${key()}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'cf-ipcity': 'Łódź',
      'user-agent': 'Mozilla/5.0 (ブラウザ) 🚀',
    };
    const list = await postRaw(`${api.baseUrl}/mcp`, headers, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    expect(list.status).toBe(200);
    expect(list.body.result.tools).toHaveLength(reads.length);
    const called = await postRaw(`${api.baseUrl}/mcp`, headers, JSON.stringify(toolCall('get_me', {})));
    expect(called.status).toBe(200);
    expect(called.body.result.structuredContent.key.prefix).toBe(key().slice(0, 12));
  });

  test('a header the SDK reads, holding a character a web Headers object cannot → 400 -32600 naming it', async () => {
    const reply = await postRaw(
      `${api.baseUrl}/mcp`,
      {
        authorization: `Bearer ${key()}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25 ✓',
      },
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list' }),
    );
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32600, message: 'Header mcp-protocol-version holds a character outside ISO-8859-1; send it as ASCII.' },
    });
  });
});

describe('malformed input: a JSON-RPC error or an isError result, never a 500', () => {
  test('not JSON → 400 parse error (-32700)', async () => {
    expectRpcError(await rpc(api, key(), '{"jsonrpc": "2.0", "id": 1, "method": '), 400, -32700);
    expectRpcError(await rpc(api, key(), ''), 400, -32700);
  });

  test('JSON, but not JSON-RPC → 400 (-32600 invalid request)', async () => {
    for (const body of [{ hello: 'world' }, 'null', { jsonrpc: '1.0', id: 1, method: 'tools/list' }]) {
      const reply = await rpc(api, key(), body);
      expect({ body, status: reply.status, code: reply.body?.error?.code }).toEqual({ body, status: 400, code: -32600 });
      expectRpcError(reply, 400, -32600);
    }
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
    expect(reply.body.error).toEqual({ code: -32602, message: 'Unknown tool: "drop_tables". Call tools/list for the available tools.' });
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
      expect(parseToolError(reply.body.result).error).toMatchObject({ code: 'invalid_request', param: name });
      const rest = await call(api, `/analyses?${name}=1`, key());
      expectError(rest, 422, 'invalid_request', { param: name });
    },
  );

  test('wrong argument types → isError with invalid_request and param', async () => {
    const reply = await rpc(api, key(), toolCall('list_analyses', { limit: 'ten' }));
    expect(reply.status).toBe(200);
    const { line, error } = parseToolError(reply.body.result);
    expect(error).toMatchObject({ code: 'invalid_request', param: 'limit', request_id: reply.headers.get('x-request-id') });
    expect(line).toMatch(/^Error invalid_request: .+ Param: limit\. Calls left this minute: \d+ of \d+\. Request id: [0-9a-f-]{36}\.$/);
  });

  test('an argument name with spaces, a line break or a line separator: the first line stays one line, the param quoted', async () => {
    const reply = await rpc(api, key(), toolCall('list_analyses', { ' li\nmit\u2028': 1 }));
    const { line, error } = parseToolError(reply.body.result);
    expect(error).toMatchObject({ code: 'invalid_request', param: ' li\nmit\u2028' });
    expect(line).toContain('Param: " li\\nmit\\u2028".');
    expect(line).not.toMatch(/[\n\u2028]/);
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
  test('the small_budget workspace gets exactly 5 calls across REST and tools/call (protocol messages free), then 429 and a rate_limited result', async () => {
    const fresh = await startTestApi();
    try {
      await awayFromMinuteEdge(20);
      const k = manifest.keys.small_budget;
      const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
      const served = [
        await call(fresh, '/me', k),
        await rpc(fresh, k, toolCall('get_me', {})),
        await rpc(fresh, k, list),
        await rpc(fresh, k, { jsonrpc: '2.0', id: 3, method: 'ping' }),
        await call(fresh, '/analyses', k),
        await rpc(fresh, k, toolCall('list_analyses', { limit: 1 })),
        await rpc(fresh, manifest.keys.small_budget_2, toolCall('list_analyses', { limit: 1 })),
      ];
      expect(served.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 200]);
      expect(served.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['4', '3', null, null, '2', '1', '0']);
      // Nothing left: reset is the seconds to the minute's end, as in the headers.
      const spent = { per_minute: 5, remaining: 0, reset_after_seconds: Number(served[6]!.headers.get('x-ratelimit-reset')) };
      expect(spent.reset_after_seconds).toBeGreaterThanOrEqual(1);
      expect(served[6]!.body.result._meta.rate_limit).toEqual(spent);
      expect(served[6]!.body.result.structuredContent.rate_limit).toEqual(spent);

      const restRefused = await call(fresh, '/me', k);
      expectError(restRefused, 429, 'rate_limited', { budget: true });
      // Still free once the budget is spent: the model can list the tools and read why it must wait.
      expect((await rpc(fresh, k, list)).body.result.tools).toHaveLength(reads.length);
      const mcpRefused = await rpc(fresh, k, toolCall('get_me', {}));
      expect(mcpRefused.status).toBe(200);
      const wait = Number(mcpRefused.headers.get('x-ratelimit-reset'));
      expect(wait).toBeGreaterThanOrEqual(1);
      const { line, error, rate_limit } = parseToolError(mcpRefused.body.result);
      expect(error.code).toBe('rate_limited');
      expect(rate_limit).toEqual({ per_minute: 5, remaining: 0, reset_after_seconds: wait });
      expect(line).toContain(`Retry in ${wait} seconds. Calls left this minute: 0 of 5.`);
      expect(mcpRefused.body.result._meta.rate_limit).toEqual(rate_limit);
    } finally {
      await fresh.close();
    }
  });

  test('an SDK client session spends one call per tools/call, none for initialize, initialized and tools/list', async () => {
    const fresh = await startTestApi();
    try {
      await awayFromMinuteEdge(20);
      const client = await connect(fresh, manifest.keys.small_budget);
      try {
        expect((await client.listTools()).tools).toHaveLength(reads.length);
        const me = (await client.callTool({ name: 'get_me', arguments: {} })) as unknown as {
          structuredContent: { rate_limit: { remaining: number } };
        };
        expect(me.structuredContent.rate_limit.remaining).toBe(4);
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
