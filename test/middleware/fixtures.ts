/**
 * What the middleware tests share, and nothing more: a bare API Gateway (payload 2.0) event, a Lambda
 * context, a call as the request-id step would create it (with a fixed id, so assertions are concrete),
 * a fake caller, an inline `before` that puts a call on the context, and the JSON log lines a piece of
 * work writes with the logger at INFO. No store, no services, no AWS: each test file runs one middleware
 * on a bare middy chain.
 */
import type middy from '@middy/core';
import { logger } from '#shared/log.js';
import type { Call, CallContext } from '#shared/middleware/call-state.js';
import type { Event, Result } from '#shared/middleware/response.js';
import type { Caller } from '#shared/store/caller.js';
import { captureLogLines } from '../support/capture.js';

export const REQUEST_ID = '0b7e8a4c-5d2f-4e1a-9c3b-7f6d5e4c3b2a';

/** A GET /x as API Gateway would send it, with `headers` as given. */
export function apiEvent(headers: Record<string, string> = {}): Event {
  return {
    version: '2.0',
    routeKey: 'GET /x',
    rawPath: '/x',
    rawQueryString: '',
    headers,
    requestContext: { http: { method: 'GET', path: '/x' } },
    isBase64Encoded: false,
  } as unknown as Event;
}

/** The Lambda context, before any middleware added `call` to it. */
export function lambdaContext(): CallContext {
  return { awsRequestId: 't', getRemainingTimeInMillis: () => 10_000 } as unknown as CallContext;
}

/** A call as the request-id step creates it, with a fixed id; `parts` sets what later steps would. */
export function newCall(parts: Partial<Call> = {}): Call {
  return { requestId: REQUEST_ID, startedAt: performance.now(), timings: {}, ...parts };
}

/** An inline `before` standing in for the request-id step: puts `call` on the context. */
export function withCall(call: Call): middy.MiddlewareFn<Event, Result, Error, CallContext> {
  return (request) => {
    request.context.call = call;
  };
}

/** A caller as the caller lookup returns it. */
export function fakeCaller(perMinute = 60): Caller {
  const day = new Date('2025-05-01T00:00:00Z');
  return {
    key: {
      id: 'key-1',
      name: 'ci',
      prefix: 'geo_live_abc',
      scope: 'workspace',
      brand: null,
      pinnedAnalysis: null,
      createdAt: day,
      expiresAt: new Date('2026-05-01T00:00:00Z'),
      lastUsedAt: day,
    },
    workspace: { id: 'ws-1', name: 'Acme', slug: 'acme' },
    plan: { key: 'pro', perMinute },
    reach: { count: 1 },
  };
}

/**
 * The JSON lines written while `work` runs, with the logger at INFO (tests run it SILENT) and set back
 * after. `work` should not throw: catch what the handler rejects with and assert on it afterwards.
 */
export async function logLinesAtInfo(work: () => Promise<unknown>): Promise<Array<Record<string, any>>> {
  const level = logger.getLevelName();
  logger.setLogLevel('INFO');
  try {
    return await captureLogLines(work);
  } finally {
    logger.setLogLevel(level as 'SILENT');
  }
}

/** What a handler that rejects rejected with (so log capture can go on), or a failure if it resolved. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the handler to reject, it resolved');
}
