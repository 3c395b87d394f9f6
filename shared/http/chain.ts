import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiSwitchMiddleware } from '../middleware/api-switch.js';
import { authenticateMiddleware } from '../middleware/authenticate.js';
import { budgetMiddleware } from '../middleware/budget.js';
import type { CallContext } from '../middleware/call.js';
import { envelopeMiddleware } from '../middleware/envelope.js';
import type { Services } from '../store/services.js';

export type Event = APIGatewayProxyEventV2;
export type Result = APIGatewayProxyStructuredResultV2;

/**
 * The head of every keyed call (DESIGN §2), shared by the read families and MCP: envelope, api switch,
 * a keyless gate (route or method), then key + plan + reach and the budget. What follows is the face's own.
 */
export function keyedChain(services: Services, gate: MiddlewareObj<Event, Result, Error, CallContext>) {
  return middy<Event, Result, Error, CallContext>()
    .use(envelopeMiddleware())
    .use(apiSwitchMiddleware(services.config.apiSwitch))
    .use(gate)
    .use(authenticateMiddleware({ lookup: services.lookup }))
    .use(budgetMiddleware({ counter: services.counter }));
}
