/**
 * response-headers on a bare middy chain, the call put on the context by an inline `before` (the handler
 * stands in for the steps that set the budget and the timings). Every response gets the base headers
 * (JSON content type, no-store, nosniff, X-Request-Id of the call); the rate headers only once the call
 * has a budget; Server-Timing from the call's timings; a missing response becomes 200 null. For the
 * refusal's own headers (Retry-After, Allow, WWW-Authenticate, taken from call.error) a refusal must
 * first be a response with call.error set, so those tests pair it with error-response and say so.
 */
import { describe, expect, test } from '@jest/globals';
import middy from '@middy/core';
import { ApiDisabled, MethodNotAllowed, RateLimited, Unauthorized } from '#shared/errors.js';
import type { Call, CallContext } from '#shared/middleware/call-state.js';
import { errorResponseMiddleware } from '#shared/middleware/error-response.js';
import type { Event, Result } from '#shared/middleware/response.js';
import { responseHeadersMiddleware } from '#shared/middleware/response-headers.js';
import { apiEvent, lambdaContext, newCall, REQUEST_ID, withCall } from './fixtures.js';

const BASE = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-request-id': REQUEST_ID,
};

type HandlerBody = (event: Event, context: CallContext) => Promise<Result | undefined>;

function alone(handlerBody: HandlerBody, call: Call = newCall()) {
  return middy<Event, Result, Error, CallContext>()
    .before(withCall(call))
    .use(responseHeadersMiddleware())
    .handler(handlerBody as (event: Event, context: CallContext) => Promise<Result>);
}

/** response-headers outside error-response, as in the envelope: a thrown refusal becomes a response first. */
function withErrorResponse(handlerBody: HandlerBody, call: Call = newCall()) {
  return middy<Event, Result, Error, CallContext>()
    .before(withCall(call))
    .use(responseHeadersMiddleware())
    .use(errorResponseMiddleware())
    .handler(handlerBody as (event: Event, context: CallContext) => Promise<Result>);
}

const ok = async (): Promise<Result> => ({ statusCode: 200, headers: {}, body: '{"ok":true}' });

describe('response-headers', () => {
  test('a served response gets the base headers; status and body unchanged', async () => {
    const response = await alone(ok)(apiEvent(), lambdaContext());
    expect(response).toEqual({ statusCode: 200, headers: BASE, body: '{"ok":true}' });
  });

  test('X-Request-Id is the id of the call', async () => {
    const response = await alone(ok, newCall({ requestId: 'id-of-this-call' }))(apiEvent(), lambdaContext());
    expect(response.headers?.['x-request-id']).toBe('id-of-this-call');
  });

  test("the handler's own headers are kept alongside", async () => {
    const response = await alone(async () => ({ statusCode: 201, headers: { location: '/x/1' }, body: '{}' }))(apiEvent(), lambdaContext());
    expect(response).toEqual({ statusCode: 201, headers: { location: '/x/1', ...BASE }, body: '{}' });
  });

  test('a handler that returns nothing: 200 with a null body and the base headers', async () => {
    const response = await alone(async () => undefined)(apiEvent(), lambdaContext());
    expect(response).toEqual({ statusCode: 200, headers: BASE, body: 'null' });
  });

  test('an error nothing turned into a response stays an error: no 200 is made up for it', async () => {
    const err = new Error('boom');
    const outcome = await alone(async () => {
      throw err;
    })(apiEvent(), lambdaContext()).then(
      (response) => ({ response }),
      (error: unknown) => ({ error }),
    );
    expect(outcome).toEqual({ error: err });
  });

  test('no budget on the call: no rate headers', async () => {
    const response = await alone(ok)(apiEvent(), lambdaContext());
    expect(Object.keys(response.headers ?? {}).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
  });

  test('a budget on the call: the three rate headers', async () => {
    const response = await alone(async (_e, context) => {
      context.call.budget = { limit: 60, remaining: 41, resetAfterSeconds: 23 };
      return ok();
    })(apiEvent(), lambdaContext());
    expect(response.headers).toMatchObject({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '41', 'x-ratelimit-reset': '23' });
  });

  test('timings on the call: Server-Timing lists each stage with its duration', async () => {
    const response = await alone(async (_e, context) => {
      Object.assign(context.call.timings, { caller: 1.25, budget: 3, data: 40.5 });
      return ok();
    })(apiEvent(), lambdaContext());
    expect(response.headers?.['server-timing']).toBe('caller;dur=1.25, budget;dur=3, data;dur=40.5');
  });

  test('no timings on the call: no Server-Timing', async () => {
    const response = await alone(ok)(apiEvent(), lambdaContext());
    expect(response.headers).not.toHaveProperty('server-timing');
  });

  test('with error-response: a 401 gets the base headers and WWW-Authenticate, no rate headers', async () => {
    const response = await withErrorResponse(async () => {
      throw new Unauthorized();
    })(apiEvent(), lambdaContext());
    expect(response.statusCode).toBe(401);
    expect(response.headers).toEqual({ ...BASE, 'www-authenticate': new Unauthorized().headers()['www-authenticate'] });
    expect(response.headers?.['www-authenticate']).toMatch(/^Bearer realm="geo-measurement-api", error="invalid_token"/);
  });

  test('with error-response: a 405 gets Allow', async () => {
    const response = await withErrorResponse(async () => {
      throw new MethodNotAllowed(['GET', 'HEAD']);
    })(apiEvent(), lambdaContext());
    expect(response.statusCode).toBe(405);
    expect(response.headers).toEqual({ ...BASE, allow: 'GET, HEAD' });
  });

  test('with error-response: a 429 gets Retry-After and the rate headers of the spent budget', async () => {
    const response = await withErrorResponse(async (_e, context) => {
      context.call.budget = { limit: 60, remaining: 0, resetAfterSeconds: 17 };
      throw new RateLimited(17);
    })(apiEvent(), lambdaContext());
    expect(response.statusCode).toBe(429);
    expect(response.headers).toEqual({
      ...BASE,
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '17',
      'retry-after': '17',
    });
  });

  test('with error-response: a 503 api_disabled gets Retry-After', async () => {
    const response = await withErrorResponse(async () => {
      throw new ApiDisabled(300);
    })(apiEvent(), lambdaContext());
    expect(response.statusCode).toBe(503);
    expect(response.headers).toEqual({ ...BASE, 'retry-after': '300' });
  });

  test('with error-response: an unknown error (500) gets the base headers only', async () => {
    const response = await withErrorResponse(async () => {
      throw new Error('boom');
    })(apiEvent(), lambdaContext());
    expect(response.statusCode).toBe(500);
    expect(response.headers).toEqual(BASE);
  });

  test('with error-response: X-Request-Id and the request_id of the error body agree', async () => {
    const response = await withErrorResponse(
      async () => {
        throw new Unauthorized();
      },
      newCall({ requestId: 'same-id' }),
    )(apiEvent(), lambdaContext());
    expect(response.headers?.['x-request-id']).toBe('same-id');
    expect(JSON.parse(response.body as string).error.request_id).toBe('same-id');
  });
});
