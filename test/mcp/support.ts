import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { LocalApi } from '../harness/stack.js';
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

export { listerOf, restPath, takesWindowAll } from './args.js';
