/**
 * response-bound alone on a bare middy chain, then with the envelope's error steps after it. Its one job:
 * a reply the function could not return (over Lambda's 6 MB as the function returns it, the body escaped
 * inside the response's JSON) becomes internal_error with its size as the cause; a reply that fits goes
 * out unchanged, whatever its characters.
 */
import { describe, expect, test } from '@jest/globals';
import middy from '@middy/core';
import { envelope } from '#shared/chain/envelope.js';
import { InternalError } from '#shared/errors.js';
import type { CallContext } from '#shared/middleware/call-state.js';
import type { Event, Result } from '#shared/middleware/response.js';
import { LAMBDA_RESPONSE_BYTES, ResponseTooLarge, responseBoundMiddleware } from '#shared/middleware/response-bound.js';
import { apiEvent, lambdaContext, logLinesAtInfo, newCall, REQUEST_ID, withCall } from './fixtures.js';

const reply = (body: string): Result => ({ statusCode: 200, headers: { 'content-type': 'application/json' }, body });
/** The size of a result as the function returns it to Lambda. */
const returned = (r: Result) => Buffer.byteLength(JSON.stringify(r));

async function alone(body: string): Promise<{ result?: Result; thrown?: unknown }> {
  const handler = middy<Event, Result, Error, CallContext>()
    .before(withCall(newCall()))
    .use(responseBoundMiddleware())
    .handler(async () => reply(body));
  try {
    return { result: await handler(apiEvent(), lambdaContext()) };
  } catch (thrown) {
    return { thrown };
  }
}

describe('response-bound', () => {
  test('a reply just under what Lambda returns goes out unchanged; one just over is an internal error naming its size', async () => {
    // ASCII: one byte a character, in the body and in the response's JSON.
    const under = `"${'a'.repeat(6_000_000)}"`;
    expect(returned(reply(under))).toBeLessThan(LAMBDA_RESPONSE_BYTES);
    expect((await alone(under)).result?.body).toBe(under);

    const over = `"${'a'.repeat(LAMBDA_RESPONSE_BYTES)}"`;
    const { thrown } = await alone(over);
    expect(thrown).toBeInstanceOf(InternalError);
    const cause = (thrown as InternalError).cause as ResponseTooLarge;
    expect(cause).toBeInstanceOf(ResponseTooLarge);
    expect(cause.bytes).toBe(returned(reply(over)));
    expect(cause.message).toContain(`over the ${LAMBDA_RESPONSE_BYTES} a Lambda function may return`);
  });

  test("a body under 6 MB that its escaping takes over (control characters written \\u0001 in the response's JSON) is refused too", async () => {
    const body = `"${'\\u0001'.repeat(1_000_000)}"`;
    expect(Buffer.byteLength(body)).toBeLessThan(LAMBDA_RESPONSE_BYTES);
    // What the body holds once JSON-escaped inside the response: each \u0001 of the JSON text is 6 bytes,
    // its backslash written twice (7).
    expect(returned(reply(body))).toBeGreaterThan(LAMBDA_RESPONSE_BYTES);
    expect((await alone(body)).thrown).toBeInstanceOf(InternalError);
  });

  test('with the envelope after it: the caller gets the internal_error envelope and the request id, and the log the size', async () => {
    const handler = middy<Event, Result, Error, CallContext>()
      .use(envelope())
      .handler(async () => reply(`"${'a'.repeat(LAMBDA_RESPONSE_BYTES)}"`));
    let result: Result | undefined;
    const lines = await logLinesAtInfo(async () => {
      result = await handler(apiEvent(), lambdaContext());
    });
    expect(result?.statusCode).toBe(500);
    const body = JSON.parse(result?.body ?? '{}') as { error: { code: string; request_id: string } };
    expect(body.error.code).toBe('internal_error');
    expect(result?.headers?.['x-request-id']).toBe(body.error.request_id);
    const fault = lines.find((l) => l.message === 'fault');
    expect(fault).toMatchObject({ code: 'internal_error', status: 500, request_id: body.error.request_id });
    expect(fault?.cause).toMatchObject({ name: 'ResponseTooLarge' });
    expect(String(fault?.cause?.message)).toMatch(/^the response would weigh \d+ bytes/);
    expect(REQUEST_ID).not.toBe(body.error.request_id);
  });
});
