import type { MiddlewareObj } from '@middy/core';
import type { CallContext } from '../middleware/call-state.js';
import { errorResponseMiddleware } from '../middleware/error-response.js';
import { faultLogMiddleware } from '../middleware/fault-log.js';
import { headMiddleware } from '../middleware/head.js';
import { requestIdMiddleware } from '../middleware/request-id.js';
import { requestLogMiddleware } from '../middleware/request-log.js';
import type { Event, Result } from '../middleware/response.js';
import { responseBoundMiddleware } from '../middleware/response-bound.js';
import { responseHeadersMiddleware } from '../middleware/response-headers.js';

/**
 * The envelope every function's chain opens with, in the order the call meets it. Middy runs `after`
 * and `onError` in reverse, so on the way out the error becomes a body (error-response, after its cause
 * is logged by fault-log), the response gets its headers, the request line is written, and a HEAD
 * loses its body last. Before all of them, a reply too large for Lambda to return becomes an error
 * (response-bound), so it too leaves with the envelope.
 */
export function envelope(): MiddlewareObj<Event, Result, Error, CallContext>[] {
  return [
    headMiddleware(),
    requestIdMiddleware(),
    requestLogMiddleware(),
    responseHeadersMiddleware(),
    errorResponseMiddleware(),
    faultLogMiddleware(),
    responseBoundMiddleware(),
  ];
}
