import type { MiddlewareObj } from '@middy/core';
import middy from '@middy/core';
import { apiSwitchMiddleware } from '../middleware/api-switch.js';
import { authenticateMiddleware } from '../middleware/authenticate.js';
import { budgetMiddleware } from '../middleware/budget.js';
import type { CallContext } from '../middleware/call-state.js';
import { errorResponseMiddleware } from '../middleware/error-response.js';
import { faultLogMiddleware } from '../middleware/fault-log.js';
import { requestIdMiddleware } from '../middleware/request-id.js';
import { requestLogMiddleware } from '../middleware/request-log.js';
import type { Event, Result } from '../middleware/response.js';
import { responseHeadersMiddleware } from '../middleware/response-headers.js';
import type { Services } from '../store/services.js';

export type { Event, Result } from '../middleware/response.js';

/**
 * The envelope every function's chain opens with, in the order the call meets it. Middy runs `after`
 * and `onError` in reverse, so on the way out the error becomes a body (error-response, after its cause
 * is logged by fault-log), the response gets its headers, and the request line is written last.
 */
export function envelope(): MiddlewareObj<Event, Result, Error, CallContext>[] {
  return [requestIdMiddleware(), requestLogMiddleware(), responseHeadersMiddleware(), errorResponseMiddleware(), faultLogMiddleware()];
}

/**
 * The head of every keyed call (docs/decisions.md#the-path-of-a-call), shared by the read families and
 * MCP: the envelope, the api switch, a keyless gate (route or origin), then key + plan + reach and the
 * budget. What follows is the face's own.
 */
export function keyedChain(services: Services, gate: MiddlewareObj<Event, Result, Error, CallContext>) {
  return middy<Event, Result, Error, CallContext>()
    .use(envelope())
    .use(apiSwitchMiddleware(services.config.apiSwitch))
    .use(gate)
    .use(authenticateMiddleware({ lookup: services.lookup }))
    .use(budgetMiddleware({ counter: services.counter }));
}
