import { type CompleteRequestParams, type CompleteResult, INVALID_PARAMS } from '@modelcontextprotocol/server';
import type { Call } from '../middleware/call-state.js';
import type { Services } from '../store/services.js';
import { callTool } from './call-tool.js';
import { argumentValues, hasArgument } from './prompts.js';
import { RpcError } from './refusals.js';
import { quoted } from './results.js';

/** The MCP spec's bound on the values of one completion. */
const MAX_VALUES = 100;

/** The analyses a completion looks through: list_analyses' largest page. */
const ANALYSES_PAGE = 200;

/**
 * A JSON-RPC error for a completion the budget refused, or that failed: the first line of the tool
 * error (code, message, seconds to wait, budget left), in the server-error range of JSON-RPC.
 */
const COMPLETION_REFUSED = -32000;

const values = (all: readonly string[], typed: string): CompleteResult => {
  const prefix = typed.toLowerCase();
  const matching = all.filter((v) => v.toLowerCase().startsWith(prefix));
  return { completion: { values: matching.slice(0, MAX_VALUES), total: matching.length, hasMore: matching.length > MAX_VALUES } };
};

/**
 * completion/complete for the prompts' arguments: `analysis` from list_analyses (the slugs the key
 * reaches, through the same tools/call path, so it spends one call of the budget, as any read of data
 * does), the others from their fixed values. A resource reference completes to nothing: the one
 * resource takes no argument.
 */
export async function complete(services: Services, call: Call, params: CompleteRequestParams): Promise<CompleteResult> {
  const { ref, argument } = params;
  if (ref.type !== 'ref/prompt') return { completion: { values: [], total: 0, hasMore: false } };
  if (!hasArgument(ref.name, argument.name))
    throw new RpcError(INVALID_PARAMS, `Prompt ${quoted(ref.name)} has no argument ${quoted(argument.name)}.`);
  const fixed = argumentValues(ref.name, argument.name);
  if (fixed) return values(fixed, argument.value);
  const result = await callTool(services, call, 'list_analyses', { limit: ANALYSES_PAGE });
  if (result.isError) {
    const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
    throw new RpcError(COMPLETION_REFUSED, text.split('\n')[0] ?? 'Error internal_error.');
  }
  const items = (result.structuredContent as { items: Array<{ slug: string }> }).items;
  return values(
    items.map((i) => i.slug),
    argument.value,
  );
}
