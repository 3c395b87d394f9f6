import type { MiddlewareObj } from '@middy/core';
import middy from '@middy/core';
import { apiSwitchMiddleware } from '../middleware/api-switch.js';
import { authenticateMiddleware } from '../middleware/authenticate.js';
import { budgetMiddleware } from '../middleware/budget.js';
import type { CallContext } from '../middleware/call-state.js';
import type { Event, Result } from '../middleware/response.js';
import type { Services } from '../store/services.js';
import { envelope } from './envelope.js';

export type { Event, Result } from '../middleware/response.js';

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
