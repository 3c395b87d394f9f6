import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { reads } from '#shared/reads/registry.js';
import type { LocalApi } from '../../local/stack.js';
import { awayFromMinuteEdge, manifest, startTestApi } from '../support/api.js';
import { parseToolError, rpc, toolCall } from './support.js';

/**
 * Both protocol eras on one stateless endpoint, through the SDK's own clients
 * of each era (v1 @modelcontextprotocol/sdk speaks 2025-11-25 and back; v2 @modelcontextprotocol/client
 * negotiates 2026-07-28), and raw messages for the revisions no pinned client offers by default. Protocol
 * messages that read no data spend no budget; malformed params get -32602 with one line.
 */
const key = () => manifest.keys.workspace;
const MODERN = '2026-07-28';
const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

let api: LocalApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const auth = (k: string) => ({ requestInit: { headers: { Authorization: `Bearer ${k}` } } });

/** The per-request envelope and standard headers of a 2026-07-28 request, as the v2 client sends them. */
const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'geo-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const modernHeaders = (method: string, name?: string) => ({
  'mcp-protocol-version': MODERN,
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
});

describe('2026-07-28: no handshake, server/discover, a per-request envelope', () => {
  test('the v2 client pinned to 2026-07-28 connects, lists every tool and calls one', async () => {
    const client = new ClientV2({ name: 'geo-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new TransportV2(new URL(`${api.baseUrl}/mcp`), auth(key())));
    try {
      expect(client.getProtocolEra()).toBe('modern');
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(reads.length);
      const result = await client.callTool({ name: 'list_analyses', arguments: { limit: 1 } });
      expect(result.isError).toBeFalsy();
      const sc = result.structuredContent as { items: unknown[]; rate_limit: { per_minute: number } };
      expect(sc.items).toHaveLength(1);
      expect(sc.rate_limit.per_minute).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  test('the v2 client in auto mode negotiates 2026-07-28 (what Claude Code probes first)', async () => {
    const client = new ClientV2({ name: 'geo-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(new URL(`${api.baseUrl}/mcp`), auth(key())));
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('get_metrics');
    } finally {
      await client.close();
    }
  });

  test('server/discover answers the revision, the tools capability and the instructions; no budget spent', async () => {
    const reply = await rpc(
      api,
      key(),
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope } },
      modernHeaders('server/discover'),
    );
    expect(reply.status).toBe(200);
    expect(reply.body.result.supportedVersions).toEqual([MODERN]);
    expect(reply.body.result.capabilities).toEqual({ tools: {}, prompts: {}, resources: {}, completions: {} });
    expect(reply.body.result.instructions).toMatch(/Each tool call spends one call/);
    expect(reply.headers.get('x-ratelimit-remaining')).toBeNull();
  });

  test('a 2026-07-28 request without its standard headers → 400 (-32020), the SDK check kept', async () => {
    const reply = await rpc(api, key(), { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe(-32020);
  });

  test('subscriptions/listen is refused at once (-32601): nothing here changes, and a Lambda cannot hold a stream', async () => {
    const params = { notifications: { toolsListChanged: true }, _meta: envelope };
    const reply = await rpc(
      api,
      key(),
      { jsonrpc: '2.0', id: 9, method: 'subscriptions/listen', params },
      modernHeaders('subscriptions/listen'),
    );
    expect(reply.status).toBe(200);
    expect(reply.body.error).toEqual({
      code: -32601,
      message: "subscriptions/listen is not served: this server's tools, prompts and resources never change.",
    });
  });
});

describe('2025 revisions: the initialize handshake, stateless', () => {
  test.each(LEGACY)('initialize at %s is answered at that revision, with the instructions', async (version) => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'geo-test', version: '1.0.0' } },
    };
    const reply = await rpc(api, key(), init);
    expect(reply.status).toBe(200);
    expect(reply.body.result.protocolVersion).toBe(version);
    expect(reply.body.result.capabilities).toEqual({ tools: {}, prompts: {}, resources: {}, completions: {} });
    expect(reply.body.result.instructions).toMatch(/Each tool call spends one call/);
    expect(reply.headers.get('mcp-session-id')).toBeNull();
    const list = await rpc(api, key(), { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': version });
    expect(list.body.result.tools).toHaveLength(reads.length);
  });

  test('the older revisions the SDK still negotiates are answered at theirs; an unknown one gets 2025-11-25', async () => {
    for (const [offered, answered] of [
      ['2024-11-05', '2024-11-05'],
      ['2024-10-07', '2024-10-07'],
      ['1999-01-01', '2025-11-25'],
    ]) {
      const reply = await rpc(api, key(), {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: offered, capabilities: {}, clientInfo: { name: 'geo-test', version: '1.0.0' } },
      });
      expect({ offered, answered: reply.body.result.protocolVersion }).toEqual({ offered, answered });
    }
  });

  test.each(LEGACY)('the v1 client connects, then calls with MCP-Protocol-Version %s', async (version) => {
    const client = new ClientV1({ name: 'geo-test', version: '1.0.0' });
    // The v1 client offers its latest revision (the raw initialize above offers each older one); its calls
    // then carry the revision header of the era under test.
    const transport = new TransportV1(new URL(`${api.baseUrl}/mcp`), auth(key()));
    await client.connect(transport);
    try {
      transport.setProtocolVersion(version);
      const result = await client.callTool({ name: 'get_me', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(client.getServerVersion()?.name).toBe('geo-measurement-api');
    } finally {
      await client.close();
    }
  });
});

describe('protocol messages spend no budget; each tools/call spends one', () => {
  test('initialize, initialized, ping, tools/list, server/discover: the budget is where it was; a tools/call takes one', async () => {
    const fresh = await startTestApi();
    try {
      await awayFromMinuteEdge(20);
      const k = manifest.keys.small_budget;
      const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'geo-test', version: '1.0.0' } };
      const free = [
        await rpc(fresh, k, { jsonrpc: '2.0', id: 1, method: 'initialize', params: init }),
        await rpc(fresh, k, { jsonrpc: '2.0', method: 'notifications/initialized' }),
        await rpc(fresh, k, { jsonrpc: '2.0', id: 2, method: 'ping' }),
        await rpc(fresh, k, { jsonrpc: '2.0', id: 3, method: 'tools/list' }),
        await rpc(
          fresh,
          k,
          { jsonrpc: '2.0', id: 4, method: 'server/discover', params: { _meta: envelope } },
          modernHeaders('server/discover'),
        ),
      ];
      expect(free.map((r) => r.status)).toEqual([200, 202, 200, 200, 200]);
      for (const r of free) expect(r.headers.get('x-ratelimit-remaining')).toBeNull();
      const paid = await rpc(fresh, k, toolCall('get_me', {}));
      expect(paid.headers.get('x-ratelimit-remaining')).toBe('4');
      expect(paid.body.result.structuredContent.rate_limit.remaining).toBe(4);
      // A refused key is still refused on a free message: the key is checked on every request.
      expect((await rpc(fresh, manifest.keys.revoked, { jsonrpc: '2.0', id: 5, method: 'tools/list' })).status).toBe(401);
      expect((await rpc(fresh, null, { jsonrpc: '2.0', id: 6, method: 'ping' })).status).toBe(401);
    } finally {
      await fresh.close();
    }
  });

  test('a refused tools/call (bad arguments) spends one, as a refused REST call does', async () => {
    const fresh = await startTestApi();
    try {
      await awayFromMinuteEdge(20);
      const reply = await rpc(fresh, manifest.keys.small_budget, toolCall('list_analyses', { limit: 0 }));
      const { error, rate_limit } = parseToolError(reply.body.result);
      expect(error).toMatchObject({ code: 'invalid_request', param: 'limit' });
      expect(rate_limit).toEqual({ per_minute: 5, remaining: 4, reset_after_seconds: 0 });
    } finally {
      await fresh.close();
    }
  });
});

describe('malformed protocol params: -32602 with one line', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['initialize without params', { method: 'initialize' }, 'Invalid params for initialize: params: expected object, received undefined.'],
    [
      'initialize with a number for protocolVersion',
      { method: 'initialize', params: { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'a', version: '1' } } },
      'Invalid params for initialize: params.protocolVersion: expected string, received number.',
    ],
    [
      'initialize without clientInfo',
      { method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } },
      'Invalid params for initialize: params.clientInfo: expected object, received undefined.',
    ],
    [
      'tools/list with a number for cursor',
      { method: 'tools/list', params: { cursor: 5 } },
      'Invalid params for tools/list: params.cursor: expected string, received number.',
    ],
    [
      'tools/list with params not an object',
      { method: 'tools/list', params: 'all' },
      'Invalid params for tools/list: params: expected object, received string.',
    ],
  ];
  test.each(cases)('%s', async (_label, message, text) => {
    const reply = await rpc(api, key(), { jsonrpc: '2.0', id: 11, ...message });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ jsonrpc: '2.0', id: 11, error: { code: -32602, message: text } });
    expect(reply.body.error.message).not.toMatch(/\n/);
  });
});
