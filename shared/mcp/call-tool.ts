import { type CallToolResult, INVALID_PARAMS } from '@modelcontextprotocol/server';
import { type ApiError, InvalidRequest, toApiError } from '../errors.js';
import { logFault } from '../log.js';
import { spendBudget } from '../middleware/budget.js';
import { type Call, settled, timed } from '../middleware/call-state.js';
import { RESPONSE_ROOM_BYTES, responseBytes } from '../middleware/response-bound.js';
import { MAX_OFFSET } from '../reads/contracts/common.js';
import { prepareRead, readContext } from '../reads/execute.js';
import { fitted } from '../reads/fit.js';
import { type BudgetState, type RateLimit, rateLimitOf } from '../store/budget.js';
import type { Services } from '../store/services.js';
import { resultText } from './fence.js';
import { RpcError } from './refusals.js';
import { errorText, plainJsonText, quoted } from './results.js';
import { callDef, type Slice } from './tools.js';

const budgetMeta = (budget: BudgetState | undefined): Record<string, unknown> => (budget ? { rate_limit: rateLimitOf(budget) } : {});

/**
 * tools/call: spends one call of the budget, then the same path as REST (prepareRead, then the read);
 * every refusal, the budget's included, is an isError result whose text a host can show as is.
 * `args` are the arguments as the request carried them (own keys, __proto__ included), not as the
 * SDK re-parsed them, so an argument REST would refuse is refused here too. `replyId` is the id of the
 * JSON-RPC reply that will carry the result: a page too large to send with it is cut (ReadDef.cut).
 */
export async function callTool(
  services: Services,
  call: Call,
  name: string,
  args: Record<string, unknown>,
  replyId: unknown = null,
): Promise<CallToolResult> {
  const def = callDef(name);
  // An unknown tool is a protocol error (MCP spec, "Error Handling"), not a tool failure.
  if (!def) throw new RpcError(INVALID_PARAMS, `Unknown tool: ${quoted(name)}. Call tools/list for the available tools.`);
  call.read = def.read;
  try {
    await spendBudget(services.counter, call);
    const caller = settled(call, 'caller');
    const budget = settled(call, 'budget');
    const { page, rest } = def.slice ? pageOf(def.slice, args) : { page: undefined, rest: args };
    const prepared = prepareRead(def.read, caller, { ...def.defaults, ...rest });
    const ctx = readContext(services, call.requestId, caller, budget, prepared.analysis);
    const { read } = def;
    const whole = await timed(call, 'data', () =>
      page && read.runPage ? read.runPage(ctx, prepared.input, page) : read.run(ctx, prepared.input),
    );
    const body = page && !read.runPage ? sliced(whole as WholeList, page) : whole;
    const result = (served: unknown): CallToolResult => {
      const structured = { ...(def.structured(served) as Record<string, unknown>), rate_limit: rateLimitOf(budget) };
      return { content: [{ type: 'text', text: resultText(def, structured) }], structuredContent: structured, _meta: budgetMeta(budget) };
    };
    const served = result(body);
    if (!read.cut || replyBytesAtMost(replyId, served) <= RESPONSE_ROOM_BYTES) return served;
    return result(fitted(body, read.cut, (page) => replyBytes(replyId, page === body ? served : result(page)), RESPONSE_ROOM_BYTES));
  } catch (err) {
    logFault(err, call.requestId, { tool: name });
    return errorResult(toApiError(err), call);
  }
}

/**
 * What a result weighs as the function returns it: in the JSON-RPC reply to `id` as the handler writes
 * it (plainRpcBody), the reply once more as a JSON string in the response.
 */
export const replyBytes = (id: unknown, result: CallToolResult): number =>
  responseBytes(plainJsonText(JSON.stringify({ result, jsonrpc: '2.0', id })));

/**
 * A bound on replyBytes from lengths alone, so that a page far from the limit is not written out once
 * more to be weighed. The text block is the longest part (structuredContent's JSON, which it holds, is
 * never longer); each UTF-16 unit of the text, of that JSON and of the id's JSON is written in at most 6
 * units in the reply (an escape), and each unit of the reply in at most 3 bytes in the response.
 */
export function replyBytesAtMost(id: unknown, result: CallToolResult): number {
  const text = result.content.reduce((n, block) => n + (block.type === 'text' ? block.text.length : 0), 0);
  return 18 * (2 * text + (JSON.stringify(id) ?? '').length) + 1024;
}

interface WholeList {
  items: unknown[];
  total: number;
  truncated: boolean;
}

/**
 * `limit` and `offset` of a whole-list read cut into pages on MCP (shared/mcp/tools.ts, MCP_SLICES), and
 * the arguments left for the read itself; refused as REST refuses a bad `limit`.
 */
function pageOf(slice: Slice, args: Record<string, unknown>): { page: { limit: number; offset: number }; rest: Record<string, unknown> } {
  const { limit = slice.limit, offset = 0, ...rest } = args;
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > slice.max)
    throw new InvalidRequest(`limit must be an integer from 1 to ${slice.max}.`, 'limit');
  if (!Number.isInteger(offset) || (offset as number) < 0 || (offset as number) > MAX_OFFSET)
    throw new InvalidRequest(`offset must be an integer from 0 to ${MAX_OFFSET}.`, 'offset');
  return { page: { limit: limit as number, offset: offset as number }, rest };
}

function sliced(body: WholeList, page: { limit: number; offset: number }): WholeList {
  const items = body.items.slice(page.offset, page.offset + page.limit);
  return { ...body, items, truncated: page.offset + items.length < body.total };
}

/**
 * A refusal as a tool result: the plain-text first line (errorText) that every host shows the model,
 * then the JSON error body. No structuredContent: a host checks it against the tool's outputSchema,
 * which an error body is not.
 */
function errorResult(error: ApiError, call: Call): CallToolResult {
  const limit: RateLimit | undefined = call.budget ? rateLimitOf(call.budget) : undefined;
  return { isError: true, content: [{ type: 'text', text: errorText(error, call.requestId, limit) }], _meta: budgetMeta(call.budget) };
}
