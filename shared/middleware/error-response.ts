import type { MiddlewareObj } from '@middy/core';
import { errorBody, toApiError } from '../errors.js';
import type { CallContext } from './call-state.js';
import { type Event, jsonResponse, type Result } from './response.js';

/**
 * Turns whatever was thrown into the one error body (docs/contract.md#error-body): a typed refusal as
 * it is, anything else internal_error, its message shown to nobody. The refusal is kept on the call for
 * the headers it calls for and for the request log.
 */
export function errorResponseMiddleware(): MiddlewareObj<Event, Result, Error, CallContext> {
  return {
    name: 'error-response',
    onError: (request) => {
      const call = request.context.call;
      const refusal = toApiError(request.error);
      call.error = refusal;
      request.response = jsonResponse(refusal.status, errorBody(refusal, call.requestId));
    },
  };
}
