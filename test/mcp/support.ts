import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { oneLine, sentence, shownParam } from '#shared/mcp/results.js';
import type { LocalApi } from '../../local/stack.js';
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

/** The budget every tool result carries (shared/mcp/results.ts). */
export interface RateLimit {
  per_minute: number;
  remaining: number;
  reset_after_seconds: number;
}

export interface ToolErrorBody {
  code: string;
  message: string;
  request_id: string;
  param?: string;
}

/**
 * A failed tool result as a host shows it: one text block whose first line is plain text naming the
 * code, the message, the param and the seconds to wait, then the JSON error body with the budget.
 * Checks that the two say the same thing; returns both.
 */
export function parseToolError(result: { isError?: boolean; structuredContent?: unknown; content: unknown }): {
  line: string;
  error: ToolErrorBody;
  rate_limit?: RateLimit;
} {
  if (result.isError !== true) throw new Error(`expected isError, got ${JSON.stringify(result).slice(0, 300)}`);
  if (result.structuredContent !== undefined) throw new Error('an error result carries no structuredContent');
  const blocks = result.content as Array<{ type: string; text?: string }>;
  if (blocks.length !== 1 || blocks[0]?.type !== 'text') throw new Error('expected one text block');
  const [line, json, ...rest] = (blocks[0].text as string).split('\n');
  if (line === undefined || json === undefined || rest.length > 0)
    throw new Error('expected two lines: the plain line, then the JSON body');
  const body = JSON.parse(json) as { error: ToolErrorBody; rate_limit?: RateLimit };
  const { error } = body;
  // The first line writes line breaks, controls and format characters as \u escapes, ends the message
  // with a period, and quotes a param that is not a plain name; neither line holds such a character raw.
  for (const part of [line, json])
    if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(part)) throw new Error(`a raw control or separator in ${JSON.stringify(part)}`);
  const expected = [
    `Error ${error.code}: ${sentence(oneLine(error.message))}`,
    error.param === undefined ? '' : ` Param: ${shownParam(error.param)}.`,
  ].join('');
  if (!line.startsWith(expected)) throw new Error(`first line ${JSON.stringify(line)} does not start with ${JSON.stringify(expected)}`);
  if (!line.endsWith(` Request id: ${error.request_id}.`))
    throw new Error(`first line ${JSON.stringify(line)} does not end with the request id`);
  if (body.rate_limit && !line.includes(`Calls left this minute: ${body.rate_limit.remaining} of ${body.rate_limit.per_minute}.`))
    throw new Error(`first line ${JSON.stringify(line)} does not state the budget left`);
  return { line, error, ...(body.rate_limit ? { rate_limit: body.rate_limit } : {}) };
}

/** structuredContent without the budget MCP adds to every result, for comparison with the REST body. */
export function withoutRateLimit(structured: unknown): Record<string, unknown> {
  const { rate_limit: _budget, ...body } = structured as Record<string, unknown>;
  return body;
}
