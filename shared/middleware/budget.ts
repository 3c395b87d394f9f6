import type { MiddlewareObj } from '@middy/core';
import type { BudgetCounter } from '../store/budget.js';
import { InternalError } from '../errors.js';
import { timed, type CallContext } from './call.js';

/** Spends one call of the workspace budget; every authenticated call counts, bad input included. */
export function budgetMiddleware(opts: { counter: BudgetCounter }): MiddlewareObj<unknown, unknown, Error, CallContext> {
  return {
    name: 'budget',
    before: async (request) => {
      const call = request.context.call;
      const identity = call.identity;
      if (!identity) throw new InternalError();
      call.budget = await timed(call, 'budget', () => opts.counter.consume(identity.workspace.id, identity.plan.perMinute));
    },
  };
}
