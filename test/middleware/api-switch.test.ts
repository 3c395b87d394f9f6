/**
 * api-switch alone on a bare middy chain. It is the operator's kill switch: switched off, it refuses
 * every call with ApiDisabled (503 api_disabled, Retry-After = the configured delay) before any later
 * step or the handler runs, so a disabled API touches no store; switched on, it lets the call through
 * untouched. With no error-response in the chain, the caller gets the refusal as thrown.
 */
import { describe, expect, jest, test } from '@jest/globals';
import middy from '@middy/core';
import { ApiDisabled } from '#shared/errors.js';
import { apiSwitchMiddleware } from '#shared/middleware/api-switch.js';
import type { CallContext } from '#shared/middleware/call-state.js';
import type { Event, Result } from '#shared/middleware/response.js';
import { apiEvent, lambdaContext, rejectionOf } from './fixtures.js';

const served: Result = { statusCode: 200, headers: {}, body: '{"ok":true}' };

function chain(opts: { disabled: boolean; retryAfter: number }, handlerBody = jest.fn(async () => served)) {
  return middy<Event, Result, Error, CallContext>().use(apiSwitchMiddleware(opts)).handler(handlerBody);
}

describe('api-switch', () => {
  test('enabled: the call passes and the handler response is returned as it is', async () => {
    const response = await chain({ disabled: false, retryAfter: 300 })(apiEvent(), lambdaContext());
    expect(response).toEqual({ statusCode: 200, headers: {}, body: '{"ok":true}' });
  });

  test('disabled: the call is refused with ApiDisabled, 503 api_disabled', async () => {
    const err = await rejectionOf(chain({ disabled: true, retryAfter: 300 })(apiEvent(), lambdaContext()));
    expect(err).toBeInstanceOf(ApiDisabled);
    expect(err).toMatchObject({ status: 503, code: 'api_disabled' });
  });

  test('disabled: the refusal carries the configured retryAfter, sent as Retry-After', async () => {
    const err = (await rejectionOf(chain({ disabled: true, retryAfter: 120 })(apiEvent(), lambdaContext()))) as ApiDisabled;
    expect(err.retryAfter).toBe(120);
    expect(err.headers()).toEqual({ 'retry-after': '120' });
  });

  test('disabled: neither a later step nor the handler runs', async () => {
    const later = jest.fn();
    const handlerBody = jest.fn(async () => served);
    const handler = middy<Event, Result, Error, CallContext>()
      .use(apiSwitchMiddleware({ disabled: true, retryAfter: 300 }))
      .before(later)
      .handler(handlerBody);
    await rejectionOf(handler(apiEvent(), lambdaContext()));
    expect(later).not.toHaveBeenCalled();
    expect(handlerBody).not.toHaveBeenCalled();
  });
});
