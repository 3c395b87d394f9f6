import type { MiddlewareObj } from '@middy/core';
import { RateLimited } from '../errors.js';
import type { BudgetCounter } from '../store/budget.js';
import { span } from '../store/trace.js';
import { type Call, type CallContext, settled, timed } from './call-state.js';

/**
 * Spends one call of the caller's workspace budget and records what is left on the call. A call past
 * the budget is refused with the budget as it stands (nothing left until the reset), so the refusal
 * carries the same rate headers as a served call.
 */
export async function spendBudget(counter: BudgetCounter, call: Call): Promise<void> {
  const caller = settled(call, 'caller');
  const limit = caller.plan.perMinute;
  try {
    call.budget = await timed(call, 'budget', () => span('budget', () => counter.consume(caller.workspace.id, limit)));
  } catch (err) {
    if (err instanceof RateLimited && err.retryAfter !== undefined)
      call.budget = { limit, remaining: 0, resetAfterSeconds: err.retryAfter };
    throw err;
  }
}

/**
 * Every authenticated REST call spends one call of the budget, bad input included. MCP spends per
 * tools/call instead (shared/mcp/call-tool.ts): protocol messages that read no data are free.
 */
export function budgetMiddleware(opts: { counter: BudgetCounter }): MiddlewareObj<unknown, unknown, Error, CallContext> {
  return {
    name: 'budget',
    before: (request) => spendBudget(opts.counter, request.context.call),
  };
}
