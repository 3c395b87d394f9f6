/**
 * error-response alone on a bare middy chain, the call put on the context by an inline `before`. It turns
 * whatever was thrown into the one error body, {error: {code, message, request_id, param?}}: a typed
 * refusal (ApiError) keeps its status, code and message; anything else is 500 internal_error with a
 * fixed message that reveals nothing of what was thrown. It keeps the refusal on the call (call.error)
 * for the headers and the request log. Its response has no headers yet: response-headers adds them.
 */
import { describe, expect, test } from '@jest/globals';
import middy from '@middy/core';
import {
  AnalysisNotFound,
  InternalError,
  InvalidRequest,
  MethodNotAllowed,
  PlanRequired,
  RateLimited,
  Unauthorized,
  UpstreamTimeout,
} from '#shared/errors.js';
import type { Call, CallContext } from '#shared/middleware/call-state.js';
import { errorResponseMiddleware } from '#shared/middleware/error-response.js';
import type { Event, Result } from '#shared/middleware/response.js';
import { apiEvent, lambdaContext, newCall, REQUEST_ID, withCall } from './fixtures.js';

const INTERNAL_MESSAGE = 'Something failed on our side. Retry once, then report the request id.';

function throwing(err: unknown, call: Call = newCall()) {
  return middy<Event, Result, Error, CallContext>()
    .before(withCall(call))
    .use(errorResponseMiddleware())
    .handler(async () => {
      throw err;
    });
}

describe('error-response', () => {
  test('a typed refusal: its status and the error body, no headers of its own', async () => {
    const response = await throwing(new AnalysisNotFound())(apiEvent(), lambdaContext());
    expect(response).toEqual({
      statusCode: 404,
      headers: {},
      body: JSON.stringify({
        error: {
          code: 'analysis_not_found',
          message: 'No analysis with this slug or identifier is within the reach of this key.',
          request_id: REQUEST_ID,
        },
      }),
    });
  });

  test.each([
    ['Unauthorized', new Unauthorized(), 401, 'unauthorized'],
    ['PlanRequired', new PlanRequired(), 403, 'plan_required'],
    ['MethodNotAllowed', new MethodNotAllowed(['GET']), 405, 'method_not_allowed'],
    ['RateLimited', new RateLimited(12), 429, 'rate_limited'],
    ['UpstreamTimeout', new UpstreamTimeout(new Error('timeout')), 503, 'upstream_timeout'],
  ])('%s: status %i, code %s', async (_name, err, status, code) => {
    const response = await throwing(err)(apiEvent(), lambdaContext());
    expect(response.statusCode).toBe(status);
    expect(JSON.parse(response.body as string).error.code).toBe(code);
  });

  test('a refusal naming a parameter: the body carries param', async () => {
    const response = await throwing(new InvalidRequest('limit must be between 1 and 100.', 'limit'))(apiEvent(), lambdaContext());
    expect(response.statusCode).toBe(422);
    expect(JSON.parse(response.body as string)).toEqual({
      error: { code: 'invalid_request', message: 'limit must be between 1 and 100.', request_id: REQUEST_ID, param: 'limit' },
    });
  });

  test('a refusal naming no parameter: the body has no param key', async () => {
    const response = await throwing(new InvalidRequest('Bad window.'))(apiEvent(), lambdaContext());
    expect(Object.keys(JSON.parse(response.body as string).error)).toEqual(['code', 'message', 'request_id']);
  });

  test('an unknown error: 500 internal_error with the fixed message', async () => {
    const response = await throwing(new Error('boom'))(apiEvent(), lambdaContext());
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body as string)).toEqual({
      error: { code: 'internal_error', message: INTERNAL_MESSAGE, request_id: REQUEST_ID },
    });
  });

  test('an unknown error: nothing of its message, name or stack reaches the body', async () => {
    const err = new TypeError('password authentication failed for user "geo_reader" at 10.0.3.17:5432');
    const response = await throwing(err)(apiEvent(), lambdaContext());
    const body = response.body as string;
    expect(body).not.toContain('password');
    expect(body).not.toContain('geo_reader');
    expect(body).not.toContain('10.0.3.17');
    expect(body).not.toContain('TypeError');
    expect(body).not.toContain('error-response.test');
  });

  test('a thrown non-Error value: 500 internal_error too', async () => {
    const response = await throwing('a bare string')(apiEvent(), lambdaContext());
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('a bare string');
    expect(JSON.parse(response.body as string).error.code).toBe('internal_error');
  });

  test('a typed refusal is kept on the call as it was thrown (call.error)', async () => {
    const refusal = new RateLimited(12);
    const call = newCall();
    await throwing(refusal, call)(apiEvent(), lambdaContext());
    expect(call.error).toBe(refusal);
  });

  test('an unknown error: call.error is the InternalError, its cause the thrown error', async () => {
    const err = new Error('boom');
    const call = newCall();
    await throwing(err, call)(apiEvent(), lambdaContext());
    expect(call.error).toBeInstanceOf(InternalError);
    expect(call.error?.cause).toBe(err);
  });

  test('a served call is not touched: the response as the handler gave it, no call.error', async () => {
    const call = newCall();
    const handler = middy<Event, Result, Error, CallContext>()
      .before(withCall(call))
      .use(errorResponseMiddleware())
      .handler(async () => ({ statusCode: 200, headers: { a: 'b' }, body: '[]' }));
    expect(await handler(apiEvent(), lambdaContext())).toEqual({ statusCode: 200, headers: { a: 'b' }, body: '[]' });
    expect(call.error).toBeUndefined();
  });

  test('the request id in the body is the id of the call', async () => {
    const call = newCall({ requestId: 'another-id' });
    const response = await throwing(new Unauthorized(), call)(apiEvent(), lambdaContext());
    expect(JSON.parse(response.body as string).error.request_id).toBe('another-id');
  });
});
