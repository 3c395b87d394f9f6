import type { MiddlewareObj } from '@middy/core';
import { RateLimited } from '../errors.js';
import type { BudgetCounter } from '../store/budget.js';
import { type CallContext, settled, timed } from './call-state.js';

/**
 * Spends one call of the workspace budget; every authenticated call counts, bad input included. A call
 * past the budget is refused with the budget as it stands (nothing left until the reset), so the 429
 * carries the same rate headers as a served call.
 */
export function budgetMiddleware(opts: { counter: BudgetCounter }): MiddlewareObj<unknown, unknown, Error, CallContext> {
  return {
    name: 'budget',
    before: async (request) => {
      const call = request.context.call;
      const caller = settled(call, 'caller');
      const limit = caller.plan.perMinute;
      try {
        call.budget = await timed(call, 'budget', () => opts.counter.consume(caller.workspace.id, limit));
      } catch (err) {
        if (err instanceof RateLimited && err.retryAfter !== undefined)
          call.budget = { limit, remaining: 0, resetAfterSeconds: err.retryAfter };
        throw err;
      }
    },
  };
}
