/**
 * request-id alone on a bare middy chain. It is the first step of every chain: it creates
 * `context.call` with a fresh UUID request id (the X-Request-Id, every log line, every error body), the
 * time the call started (performance.now()) and empty timings, before the handler runs. The handler
 * here returns what it sees of the call, which is all a caller of this step alone can observe.
 */
import { describe, expect, test } from '@jest/globals';
import middy from '@middy/core';
import type { Call, CallContext } from '#shared/middleware/call-state.js';
import { requestIdMiddleware } from '#shared/middleware/request-id.js';
import type { Event, Result } from '#shared/middleware/response.js';
import { apiEvent, lambdaContext } from './fixtures.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A chain whose handler returns the call it was given, as the body. */
function echoCall() {
  return middy<Event, Result, Error, CallContext>()
    .use(requestIdMiddleware())
    .handler(async (_event, context) => ({ statusCode: 200, body: JSON.stringify(context.call) }));
}

async function callSeen(): Promise<Call> {
  const response = await echoCall()(apiEvent(), lambdaContext());
  return JSON.parse(response.body as string) as Call;
}

describe('request-id', () => {
  test('the handler finds a call with a UUID v4 request id', async () => {
    const call = await callSeen();
    expect(call.requestId).toMatch(UUID_V4);
  });

  test('the call starts with no timings', async () => {
    const call = await callSeen();
    expect(call.timings).toEqual({});
  });

  test('startedAt is the performance clock at the start of the call', async () => {
    const before = performance.now();
    const call = await callSeen();
    const after = performance.now();
    expect(call.startedAt).toBeGreaterThanOrEqual(before);
    expect(call.startedAt).toBeLessThanOrEqual(after);
  });

  test('the call has only its own parts: no caller, budget or refusal yet', async () => {
    const context = lambdaContext();
    await echoCall()(apiEvent(), context);
    expect(Object.keys(context.call).sort()).toEqual(['requestId', 'startedAt', 'timings']);
  });

  test('each call gets its own id, on the same handler', async () => {
    const handler = echoCall();
    const ids = new Set<string>();
    for (let i = 0; i < 5; i += 1) {
      const response = await handler(apiEvent(), lambdaContext());
      ids.add((JSON.parse(response.body as string) as Call).requestId);
    }
    expect(ids.size).toBe(5);
  });

  test('a warm context reused from the previous call gets a fresh call', async () => {
    const handler = echoCall();
    const context = lambdaContext();
    await handler(apiEvent(), context);
    const first = context.call;
    first.timings.data = 12;
    await handler(apiEvent(), context);
    expect(context.call).not.toBe(first);
    expect(context.call.requestId).not.toBe(first.requestId);
    expect(context.call.timings).toEqual({});
  });
});
