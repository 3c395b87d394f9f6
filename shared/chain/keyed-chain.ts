import type { MiddlewareObj } from '@middy/core';
import middy from '@middy/core';
import { apiSwitchMiddleware } from '../middleware/api-switch.js';
import { authenticateMiddleware } from '../middleware/authenticate.js';
import type { CallContext } from '../middleware/call-state.js';
import type { Event, Result } from '../middleware/response.js';
import type { Services } from '../store/services.js';
import { envelope } from './envelope.js';

/**
 * The head of every keyed call (docs/decisions.md#the-path-of-a-call), shared by the read families and
 * MCP: the envelope, the api switch, a keyless gate (route or origin), then key + plan + reach. What
 * follows is the face's own, the budget included: REST spends one call per request, MCP one per
 * tools/call. `reference` finds the analysis the call names (REST: the path
 * parameter, the default), resolved with the key in the same statement.
 */
export function keyedChain(
  services: Services,
  gate: MiddlewareObj<Event, Result, Error, CallContext>,
  reference?: (event: Event) => string | undefined,
) {
  return middy<Event, Result, Error, CallContext>()
    .use(envelope())
    .use(apiSwitchMiddleware(services.config.apiSwitch))
    .use(gate)
    .use(authenticateMiddleware({ lookup: services.lookup, ...(reference ? { reference } : {}) }));
}
