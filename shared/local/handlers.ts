import { restHandler } from '../http/rest.js';
import type { Services } from '../services.js';
import type { Handlers, LambdaHandler } from './adapter.js';

/** The same handler factories the Lambda entry files use, bound to one set of local services. */
export function createHandlers(services: Services): Handlers {
  const identity = restHandler('identity', services) as unknown as LambdaHandler;
  return {
    identity,
    figures: restHandler('figures', services) as unknown as LambdaHandler,
    catalog: restHandler('catalog', services) as unknown as LambdaHandler,
    mcp: identity,
    openapi: identity,
  };
}
