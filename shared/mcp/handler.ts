import { INVALID_REQUEST, isLegacyRequest } from '@modelcontextprotocol/server';
import { keyedChain } from '../chain/keyed-chain.js';
import { TooManyMessages } from '../errors.js';
import { type Call, settled, timed } from '../middleware/call-state.js';
import type { Event, Result } from '../middleware/response.js';
import type { FreeMessageCounter } from '../store/free-messages.js';
import type { Services } from '../store/services.js';
import { originGateMiddleware } from './gate.js';
import { incomingOf, isPlainObject, MAX_FREE_BODY_BYTES, MAX_MCP_BODY_BYTES, spendsBudget, toolAnalysis } from './incoming.js';
import { jsonRpcError, plainRpcBody, refusal } from './refusals.js';
import { mcpServer, serveLegacy, serveModern, toWebRequest, UnusableHeader } from './server.js';

/**
 * Counts a message that spends no budget against the key's bound on free messages. A refusal is a 429
 * like any other, so it carries the three rate headers beside Retry-After: they describe the bound that
 * refused it (its ceiling, nothing left, the same delay). A served free message carries none: it touched
 * no call budget, and the headers of a served call describe that budget.
 */
async function countFreeMessage(counter: FreeMessageCounter, call: Call): Promise<void> {
  const caller = settled(call, 'caller');
  try {
    await timed(call, 'budget', () => counter.count(caller.key.id, caller.plan.perMinute));
  } catch (err) {
    if (err instanceof TooManyMessages && err.retryAfter !== undefined)
      call.budget = { limit: err.ceiling, remaining: 0, resetAfterSeconds: err.retryAfter };
    throw err;
  }
}

/**
 * Whether the request consulted a counter: a budget spend and a free message's count both run as the
 * call's 'budget' stage (timed), whatever their outcome.
 */
const counted = (call: Call): boolean => call.timings.budget !== undefined;

/**
 * POST /api/v1/mcp: the keyed chain (docs/decisions.md#the-path-of-a-call) in front of a stateless MCP
 * server serving both protocol eras. The key is checked on every request; tools/call and
 * completion/complete spend budget, every other message counts against the key's bound on free
 * messages (shared/store/free-messages.ts) and must be small. No request goes uncounted: a tools/call or
 * completion that ends before it spends (an unknown tool, params the SDK refuses, a notification, a
 * completion from fixed values, a refused body) counts as a free message once answered, and past the
 * bound its answer is the 429 instead.
 */
export function mcpHandler(services: Services) {
  return keyedChain(services, originGateMiddleware(services.config.MCP_ALLOWED_ORIGINS), toolAnalysis).handler(async (event, context) => {
    const { call } = context;
    const { body, message } = incomingOf(event);
    if (!spendsBudget(message)) await countFreeMessage(services.free, call);
    const reply = await serve(services, event, call, body, message);
    if (!counted(call)) await countFreeMessage(services.free, call);
    return reply;
  });
}

/** One message, its key checked and (unless it spends) counted: refused for its size or form, or served. */
async function serve(services: Services, event: Event, call: Call, body: string, message: unknown): Promise<Result> {
  const bytes = Buffer.byteLength(body);
  if (bytes > MAX_MCP_BODY_BYTES) return jsonRpcError(413, INVALID_REQUEST, 'Request body over 1 MB.');
  if (!spendsBudget(message) && bytes > MAX_FREE_BODY_BYTES)
    return jsonRpcError(
      413,
      INVALID_REQUEST,
      `Request body over ${MAX_FREE_BODY_BYTES / 1024} KB: only tools/call and completion/complete carry arguments that need more.`,
      isPlainObject(message) ? (message.id ?? null) : null,
    );
  const refused = refusal(message);
  if (refused) return refused;

  let request: Request;
  try {
    request = toWebRequest(event, message === undefined ? body : null);
  } catch (err) {
    if (err instanceof UnusableHeader)
      return jsonRpcError(400, INVALID_REQUEST, err.message, isPlainObject(message) ? (message.id ?? null) : null);
    throw err;
  }
  const server = mcpServer(services, call, isPlainObject(message) ? message : {});
  // 2025-era requests are routed by us, not left to createMcpHandler, so that they get JSON replies rather
  // than SSE streams (serveLegacy says why).
  const legacy = message === undefined || (await isLegacyRequest(request, message));
  const response = legacy ? await serveLegacy(server, request, message) : await serveModern(server, request, message);
  return { statusCode: response.status, headers: {}, body: plainRpcBody(await response.text()) };
}
