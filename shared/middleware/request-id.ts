import { randomUUID } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import type { CallContext } from './call-state.js';
import type { Event, Result } from './response.js';

/** First step: the call gets its id (X-Request-Id, every log line, every error body) and its clock. */
export function requestIdMiddleware(): MiddlewareObj<Event, Result, Error, CallContext> {
  return {
    name: 'request-id',
    before: (request) => {
      request.context.call = { requestId: randomUUID(), startedAt: performance.now(), timings: {} };
    },
  };
}
