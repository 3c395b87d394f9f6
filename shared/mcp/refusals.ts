import {
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  type StandardSchemaV1,
  type StandardSchemaV1Sync,
  specTypeSchemas,
} from '@modelcontextprotocol/server';
import type { Result } from '../middleware/response.js';
import { isPlainObject } from './incoming.js';
import { oneLine, plainJson, plainJsonText } from './results.js';

/** What a malformed tools/call gets (docs/mcp.md), instead of the SDK's zod issue dump. */
export const INVALID_CALL = 'Invalid params: tools/call takes {"name": string, "arguments": object}.';

/**
 * The methods this server answers, and the SDK schema each message must match. Checked here, so that a
 * malformed one gets -32602 with one line, not the SDK's -32603 with its validator's dump.
 */
const SERVED: Readonly<Record<string, StandardSchemaV1Sync>> = {
  initialize: specTypeSchemas.InitializeRequest,
  ping: specTypeSchemas.PingRequest,
  'tools/list': specTypeSchemas.ListToolsRequest,
  'tools/call': specTypeSchemas.CallToolRequest,
  'server/discover': specTypeSchemas.DiscoverRequest,
  'prompts/list': specTypeSchemas.ListPromptsRequest,
  'prompts/get': specTypeSchemas.GetPromptRequest,
  'resources/list': specTypeSchemas.ListResourcesRequest,
  'resources/templates/list': specTypeSchemas.ListResourceTemplatesRequest,
  'resources/read': specTypeSchemas.ReadResourceRequest,
  'completion/complete': specTypeSchemas.CompleteRequest,
};

/**
 * `subscriptions/listen` (2026-07-28) holds an SSE stream open for change notifications. Nothing here
 * ever changes (the tools, prompts and the one resource are fixed), and a Lambda cannot hold a stream:
 * served, it would run until the function's timeout.
 */
const NOT_SERVED = new Set(['subscriptions/listen']);

/**
 * A JSON-RPC error raised from a handler. The SDK sends `message` as is; its ProtocolError would prefix
 * "MCP error -32602:", which the client prefixes again.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A JSON-RPC error answered without reaching the MCP server (same shape as the SDK transport's own): its
 * message on one line whatever it quotes, and its JSON with no raw separator or format character.
 */
export function jsonRpcError(status: number, code: number, message: string, id: unknown = null): Result {
  return { statusCode: status, headers: {}, body: plainJson({ jsonrpc: '2.0', id, error: { code, message: oneLine(message) } }) };
}

/**
 * A JSON-RPC answer of the SDK as a model may read it: an error's message on one line (the SDK quotes
 * header and body values in some), and no raw separator or format character anywhere in the JSON.
 */
export function plainRpcBody(body: string): string {
  // Only an error's message is rewritten; a body without the key (a result: the text of a tool result
  // holds its JSON in a string, where every quote is escaped) is escaped as written, not parsed again.
  if (!body.includes('"error":')) return plainJsonText(body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  if (isPlainObject(parsed) && isPlainObject(parsed.error) && typeof parsed.error.message === 'string')
    parsed.error.message = oneLine(parsed.error.message);
  return plainJson(parsed);
}

/** "params.cursor: expected string, received number": where and what, on one line. */
function firstIssue(issues: readonly StandardSchemaV1.Issue[]): string {
  const issue = issues[0];
  if (!issue) return 'not the shape the method takes';
  const where = (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.') || 'message';
  return `${where}: ${issue.message.replace(/^Invalid input: /, '').replace(/\s+/g, ' ')}`;
}

/**
 * Refusals made before the SDK sees the message, each as one JSON-RPC error with a one-line message:
 * a batch, a method this server does not serve as asked, params of the wrong shape.
 */
export function refusal(message: unknown): Result | undefined {
  // One HTTP request carries one message (MCP 2025-06-18 dropped batching); a batch of tools/call would
  // also be many reads for one request.
  if (Array.isArray(message))
    return jsonRpcError(400, INVALID_REQUEST, 'Batches are not supported: send one JSON-RPC message per request.');
  if (!isPlainObject(message) || typeof message.method !== 'string' || !('id' in message)) return undefined;
  const { method, id } = message;
  if (NOT_SERVED.has(method))
    return jsonRpcError(200, METHOD_NOT_FOUND, `${method} is not served: this server's tools, prompts and resources never change.`, id);
  const schema = SERVED[method];
  if (!schema) return undefined;
  const checked = schema['~standard'].validate(message);
  if (!checked.issues) return undefined;
  const text = method === 'tools/call' ? INVALID_CALL : `Invalid params for ${method}: ${firstIssue(checked.issues)}.`;
  return jsonRpcError(200, INVALID_PARAMS, text, id);
}
