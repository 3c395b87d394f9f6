/**
 * request-log on a bare middy chain, the call put on the context by an inline `before` (with the parts
 * the later steps would have set), the logger at INFO and its lines captured. It writes the one
 * `request` line of a call, with stable fields (request id, method, read, key and workspace ids, status,
 * error code, durations), once the response is final: on success and on error alike, and never the
 * secret (the key appears by id only). The error-path tests pair it with error-response, which makes the
 * refusal the response it logs, and say so. It also counts the call (one EMF line per request).
 */
import { describe, expect, test } from '@jest/globals';
import middy from '@middy/core';
import { RateLimited, Unauthorized } from '#shared/errors.js';
import type { Call, CallContext } from '#shared/middleware/call-state.js';
import { errorResponseMiddleware } from '#shared/middleware/error-response.js';
import { requestLogMiddleware } from '#shared/middleware/request-log.js';
import type { Event, Result } from '#shared/middleware/response.js';
import type { ReadDef } from '#shared/reads/types.js';
import { apiEvent, fakeCaller, lambdaContext, logLinesAtInfo, newCall, REQUEST_ID, rejectionOf, withCall } from './fixtures.js';

const SECRET = `geo_live_${'Zq7'.repeat(14)}`;
const READ = { name: 'list_analyses' } as ReadDef;

/** A call as it stands once authenticate, budget and the read ran. */
function servedCall(): Call {
  return newCall({
    caller: fakeCaller(),
    read: READ,
    budget: { limit: 60, remaining: 59, resetAfterSeconds: 30 },
    timings: { caller: 1.5, budget: 2.25, data: 30 },
  });
}

type HandlerBody = (event: Event, context: CallContext) => Promise<Result>;
const ok: HandlerBody = async () => ({ statusCode: 200, headers: {}, body: '[]' });

function alone(call: Call, handlerBody: HandlerBody = ok) {
  return middy<Event, Result, Error, CallContext>().before(withCall(call)).use(requestLogMiddleware()).handler(handlerBody);
}

/** request-log outside error-response, as in the envelope: a refusal is a response when the line is written. */
function withErrorResponse(call: Call, handlerBody: HandlerBody) {
  return middy<Event, Result, Error, CallContext>()
    .before(withCall(call))
    .use(requestLogMiddleware())
    .use(errorResponseMiddleware())
    .handler(handlerBody);
}

const requestLines = (lines: Array<Record<string, any>>) => lines.filter((l) => l.message === 'request');

describe('request-log', () => {
  test('a served call: one INFO request line with the fields of the call', async () => {
    const lines = await logLinesAtInfo(() => alone(servedCall())(apiEvent(), lambdaContext()));
    expect(requestLines(lines)).toHaveLength(1);
    expect(requestLines(lines)[0]).toMatchObject({
      level: 'INFO',
      message: 'request',
      request_id: REQUEST_ID,
      method: 'GET',
      read: 'list_analyses',
      key_id: 'key-1',
      workspace_id: 'ws-1',
      status: 200,
      caller_ms: 1.5,
      budget_ms: 2.25,
      data_ms: 30,
    });
  });

  test('the fields are the stable set, and a served call has no error_code', async () => {
    const [line] = requestLines(await logLinesAtInfo(() => alone(servedCall())(apiEvent(), lambdaContext())));
    const fields = ['request_id', 'method', 'read', 'key_id', 'workspace_id', 'status', 'duration_ms', 'caller_ms', 'budget_ms', 'data_ms'];
    for (const field of fields) expect(line).toHaveProperty(field);
    expect(line).not.toHaveProperty('error_code');
  });

  test('duration_ms is the time since the call started', async () => {
    const call = newCall({ startedAt: performance.now() - 250 });
    const [line] = requestLines(await logLinesAtInfo(() => alone(call)(apiEvent(), lambdaContext())));
    expect(line?.duration_ms).toBeGreaterThanOrEqual(250);
    expect(line?.duration_ms).toBeLessThan(5_250);
  });

  test('a handler that returned nothing is logged as 200, the status response-headers gives it', async () => {
    const handler = alone(servedCall(), async () => undefined as unknown as Result);
    const [line] = requestLines(await logLinesAtInfo(() => handler(apiEvent(), lambdaContext())));
    expect(line?.status).toBe(200);
  });

  test('the status logged is the final one, after the steps inside it changed the response', async () => {
    const handler = middy<Event, Result, Error, CallContext>()
      .before(withCall(servedCall()))
      .use(requestLogMiddleware())
      .after((request) => {
        if (request.response) request.response.statusCode = 206;
      })
      .handler(ok);
    const [line] = requestLines(await logLinesAtInfo(() => handler(apiEvent(), lambdaContext())));
    expect(line?.status).toBe(206);
  });

  test('with error-response: a refusal is logged with its status and error_code', async () => {
    const handler = withErrorResponse(servedCall(), async () => {
      throw new RateLimited(17);
    });
    const lines = requestLines(await logLinesAtInfo(() => handler(apiEvent(), lambdaContext())));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'INFO', request_id: REQUEST_ID, status: 429, error_code: 'rate_limited' });
  });

  test('with error-response: a 401 before authentication has no key, workspace or read', async () => {
    const handler = withErrorResponse(newCall(), async () => {
      throw new Unauthorized();
    });
    const [line] = requestLines(await logLinesAtInfo(() => handler(apiEvent(), lambdaContext())));
    expect(line).toMatchObject({ status: 401, error_code: 'unauthorized', method: 'GET' });
    expect(line).not.toHaveProperty('key_id');
    expect(line).not.toHaveProperty('workspace_id');
    expect(line).not.toHaveProperty('read');
  });

  test('with error-response: an unknown error is logged as 500 internal_error', async () => {
    const handler = withErrorResponse(servedCall(), async () => {
      throw new Error('boom');
    });
    const [line] = requestLines(await logLinesAtInfo(() => handler(apiEvent(), lambdaContext())));
    expect(line).toMatchObject({ status: 500, error_code: 'internal_error' });
  });

  test('an error nothing turned into a response: the line is still written once, the error goes on', async () => {
    const err = new Error('boom');
    let thrown: unknown;
    const lines = await logLinesAtInfo(async () => {
      thrown = await rejectionOf(
        alone(servedCall(), async () => {
          throw err;
        })(apiEvent(), lambdaContext()),
      );
    });
    expect(thrown).toBe(err);
    expect(requestLines(lines)).toHaveLength(1);
    expect(requestLines(lines)[0]?.request_id).toBe(REQUEST_ID);
    // The runtime reports a failed invocation, never a served call.
    expect(requestLines(lines)[0]?.status).toBe(500);
  });

  test('never the secret: nothing written holds the key or its Authorization header', async () => {
    const lines = await logLinesAtInfo(() => alone(servedCall())(apiEvent({ authorization: `Bearer ${SECRET}` }), lambdaContext()));
    expect(requestLines(lines)).toHaveLength(1);
    const written = JSON.stringify(lines);
    expect(written).not.toContain(SECRET);
    expect(written).not.toContain('Zq7Zq7');
    expect(written).not.toContain('Bearer');
  });

  test('the call is counted: one EMF line by read and error code', async () => {
    const lines = await logLinesAtInfo(() => alone(servedCall())(apiEvent(), lambdaContext()));
    const emf = lines.filter((l) => '_aws' in l);
    expect(emf).toHaveLength(1);
    expect(emf[0]).toMatchObject({ read: 'list_analyses', error_code: 'none', requests: 1 });
  });
});
