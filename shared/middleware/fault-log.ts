import type { MiddlewareObj } from '@middy/core';
import { logFault } from '../log.js';
import type { CallContext } from './call-state.js';
import type { Event, Result } from './response.js';

/**
 * Logs the cause of a refusal that a fault made (store, budget counter, configuration) and every
 * unknown error in full, under the request id. It sits inside error-response, so it sees the error as
 * it was thrown.
 */
export function faultLogMiddleware(): MiddlewareObj<Event, Result, Error, CallContext> {
  return {
    name: 'fault-log',
    onError: (request) => {
      logFault(request.error, request.context.call.requestId);
    },
  };
}
