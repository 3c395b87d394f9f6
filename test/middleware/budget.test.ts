/**
 * budget alone on a bare middy chain, the call (with or without a caller) put on the context by an inline
 * `before` and the budget counter a fake `{ consume }`. It spends one call of the caller's workspace at
 * the plan's rate and keeps the budget on the call (for the rate headers); a counter that says the budget
 * is spent (RateLimited) leaves the budget on the call as "nothing left until the reset" and the refusal
 * goes on to the caller; reached without a caller, the chain is miswired and the call is refused as
 * internal_error, without spending anything.
 */
import { describe, expect, jest, test } from '@jest/globals';
import middy from '@middy/core';
import { InternalError, RateLimited, RateLimitUnavailable } from '#shared/errors.js';
import { budgetMiddleware } from '#shared/middleware/budget.js';
import type { Call, CallContext } from '#shared/middleware/call-state.js';
import type { Event, Result } from '#shared/middleware/response.js';
import type { BudgetCounter, BudgetState } from '#shared/store/budget.js';
import { apiEvent, fakeCaller, lambdaContext, newCall, rejectionOf, withCall } from './fixtures.js';

const served: Result = { statusCode: 200, headers: {}, body: '{"ok":true}' };

function counter(consume: BudgetCounter['consume']) {
  return { consume: jest.fn(consume) };
}

function chain(call: Call, budgetCounter: BudgetCounter, handlerBody = async () => served) {
  return middy<Event, Result, Error, CallContext>()
    .before(withCall(call))
    .use(budgetMiddleware({ counter: budgetCounter }))
    .handler(handlerBody);
}

describe('budget', () => {
  test('no caller on the call (a wiring fault): internal_error, nothing is spent', async () => {
    const fake = counter(async () => ({ limit: 60, remaining: 59, resetAfterSeconds: 30 }));
    const call = newCall();
    const err = await rejectionOf(chain(call, fake)(apiEvent(), lambdaContext()));
    expect(err).toBeInstanceOf(InternalError);
    expect(err).toMatchObject({ status: 500, code: 'internal_error' });
    expect(fake.consume).not.toHaveBeenCalled();
    expect(call.budget).toBeUndefined();
  });

  test("one call is spent, of the caller's workspace, at the plan's rate", async () => {
    const fake = counter(async () => ({ limit: 120, remaining: 119, resetAfterSeconds: 41 }));
    await chain(newCall({ caller: fakeCaller(120) }), fake)(apiEvent(), lambdaContext());
    expect(fake.consume).toHaveBeenCalledTimes(1);
    expect(fake.consume).toHaveBeenCalledWith('ws-1', 120);
  });

  test("the counter's answer is the call's budget, and the handler runs", async () => {
    const state: BudgetState = { limit: 60, remaining: 12, resetAfterSeconds: 41 };
    const call = newCall({ caller: fakeCaller() });
    const response = await chain(
      call,
      counter(async () => state),
    )(apiEvent(), lambdaContext());
    expect(call.budget).toEqual({ limit: 60, remaining: 12, resetAfterSeconds: 41 });
    expect(response).toEqual(served);
  });

  test('the time the counter took is recorded as timings.budget', async () => {
    const call = newCall({ caller: fakeCaller() });
    const slow = counter(async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return { limit: 60, remaining: 59, resetAfterSeconds: 30 };
    });
    await chain(call, slow)(apiEvent(), lambdaContext());
    expect(call.timings.budget).toBeGreaterThanOrEqual(25);
    expect(call.timings.budget).toBeLessThan(5_000);
  });

  test('budget spent (RateLimited): the call keeps {limit, remaining 0, resetAfterSeconds = retryAfter}', async () => {
    const call = newCall({ caller: fakeCaller(60) });
    await rejectionOf(
      chain(
        call,
        counter(async () => {
          throw new RateLimited(17);
        }),
      )(apiEvent(), lambdaContext()),
    );
    expect(call.budget).toEqual({ limit: 60, remaining: 0, resetAfterSeconds: 17 });
  });

  test('budget spent (RateLimited): the refusal reaches the caller as it is, the handler does not run', async () => {
    const refusal = new RateLimited(17);
    const handlerBody = jest.fn(async () => served);
    const err = await rejectionOf(
      chain(
        newCall({ caller: fakeCaller() }),
        counter(async () => {
          throw refusal;
        }),
        handlerBody,
      )(apiEvent(), lambdaContext()),
    );
    expect(err).toBe(refusal);
    expect(handlerBody).not.toHaveBeenCalled();
  });

  test('a counter that fails (RateLimitUnavailable): the refusal goes on, no budget is set', async () => {
    const refusal = new RateLimitUnavailable(new Error('ECONNRESET'));
    const call = newCall({ caller: fakeCaller() });
    const err = await rejectionOf(
      chain(
        call,
        counter(async () => {
          throw refusal;
        }),
      )(apiEvent(), lambdaContext()),
    );
    expect(err).toBe(refusal);
    expect(call.budget).toBeUndefined();
    expect(typeof call.timings.budget).toBe('number');
  });
});
