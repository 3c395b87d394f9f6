import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import type { LocalApi } from '../../shared/local/stack.js';
import { reads } from '../../shared/reads/registry.js';
import { pathParams, type ReadDef } from '../../shared/reads/types.js';
import { call, type Reply } from '../support/api.js';

/** An MCP client as an assistant would run it: the SDK's own Client over Streamable HTTP, with the key. */
export async function connect(api: LocalApi, key: string): Promise<Client> {
  const client = new Client({ name: 'geo-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${api.baseUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/** One raw JSON-RPC POST through call(), so the HTTP reply is also checked against openapi.json. */
export function rpc(api: LocalApi, key: string | null, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return call(api, '/mcp', key, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export const toolCall = (name: string, args: Record<string, unknown>, id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** The REST path and query of a read for the given arguments (path parameters filled in, the rest as query). */
export function restPath(read: ReadDef, args: Record<string, unknown>): string {
  const inPath = pathParams(read.path);
  const path = read.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(args[name])));
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(args)) if (!inPath.includes(k)) query.set(k, String(v));
  const qs = query.toString();
  return qs ? `${path}?${qs}` : path;
}

/**
 * The read that lists what a path parameter names: for /analyses/{analysis}/runs/{run} it is the read
 * at /analyses/{analysis}/runs. Derived from the table, so reads added later are covered too.
 */
export function listerOf(read: ReadDef, param: string): ReadDef | undefined {
  const prefix = read.path.slice(0, read.path.indexOf(`/{${param}}`));
  return reads.find((r) => r.path === prefix);
}

/** Whether a read takes `window` and accepts `all` (to find ids in the whole history). */
export function takesWindowAll(read: ReadDef): boolean {
  const schema = z.toJSONSchema(read.input, { io: 'input' }) as { properties?: { window?: { enum?: unknown[] } } };
  return schema.properties?.window?.enum?.includes('all') ?? false;
}
