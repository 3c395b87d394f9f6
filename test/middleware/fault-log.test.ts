/**
 * fault-log alone on a bare middy chain (the call put on the context by an inline `before`). Its one job
 * is the log: a refusal a fault caused (an ApiError with a cause) gets one `fault` line with its code,
 * status and cause under the request id, at WARN for a 503 and ERROR for any other 5xx; a refusal of the
 * caller's own making (no cause) logs nothing; an unknown error gets an `unhandled fault` ERROR line. It
 * turns nothing into a response: with nothing after it, the caller gets the error as it was thrown.
 */
import { describe, expect, test } from '@jest/globals';
import middy from '@middy/core';
import { InternalError, RateLimitUnavailable, Unauthorized, UpstreamTimeout } from '#shared/errors.js';
import type { CallContext } from '#shared/middleware/call-state.js';
import { faultLogMiddleware } from '#shared/middleware/fault-log.js';
import type { Event, Result } from '#shared/middleware/response.js';
import { apiEvent, lambdaContext, logLinesAtInfo, newCall, REQUEST_ID, rejectionOf, withCall } from './fixtures.js';

/** A chain whose handler throws `err`; returns the log lines and what the caller got. */
async function run(err: unknown): Promise<{ lines: Array<Record<string, any>>; thrown: unknown }> {
  const handler = middy<Event, Result, Error, CallContext>()
    .before(withCall(newCall()))
    .use(faultLogMiddleware())
    .handler(async () => {
      throw err;
    });
  let thrown: unknown;
  const lines = await logLinesAtInfo(async () => {
    thrown = await rejectionOf(handler(apiEvent(), lambdaContext()));
  });
  return { lines, thrown };
}

describe('fault-log', () => {
  test('a 500 refusal with a cause: one ERROR fault line with code, status and cause', async () => {
    const { lines } = await run(new InternalError(new Error('relation "api_caller" does not exist')));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'ERROR',
      message: 'fault',
      request_id: REQUEST_ID,
      code: 'internal_error',
      status: 500,
      cause: { name: 'Error', message: 'relation "api_caller" does not exist' },
    });
  });

  test('a 503 refusal with a cause: the fault line is WARN', async () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const { lines } = await run(new UpstreamTimeout(cause));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'WARN',
      message: 'fault',
      request_id: REQUEST_ID,
      code: 'upstream_timeout',
      status: 503,
      cause: { name: 'Error', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' },
    });
  });

  test('a classified cause (a plain object) is logged as it is', async () => {
    const { lines } = await run(new RateLimitUnavailable({ fault: 'budget', http_status: 500, message: 'InternalServerError' }));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'WARN',
      code: 'rate_limit_unavailable',
      status: 503,
      cause: { fault: 'budget', http_status: 500, message: 'InternalServerError' },
    });
  });

  test("a refusal without a cause (the caller's own making) logs nothing", async () => {
    const { lines } = await run(new Unauthorized());
    expect(lines).toEqual([]);
  });

  test('an unknown error: one ERROR "unhandled fault" line under the request id', async () => {
    const { lines } = await run(new TypeError("Cannot read properties of undefined (reading 'id')"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'ERROR',
      message: 'unhandled fault',
      request_id: REQUEST_ID,
      cause: { name: 'TypeError', message: "Cannot read properties of undefined (reading 'id')" },
    });
    expect(JSON.stringify(lines[0]?.error)).toContain("reading 'id'");
  });

  test('it handles nothing: the caller gets the error as it was thrown', async () => {
    const err = new UpstreamTimeout(new Error('timeout'));
    const { thrown } = await run(err);
    expect(thrown).toBe(err);
  });
});
