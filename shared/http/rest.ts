import type { MiddlewareObj } from '@middy/core';
import { MethodNotAllowed, NotFound } from '../errors.js';
import { timed, type CallContext } from '../middleware/call.js';
import { jsonResponse } from '../middleware/envelope.js';
import { prepareRead, readContext } from '../reads/execute.js';
import type { Family, ReadDef } from '../reads/types.js';
import { routeKey, routes, matchPath } from '../routes.js';
import type { Services } from '../services.js';
import { keyedChain, type Event, type Result } from './chain.js';
import { parseQuery } from './input.js';

/**
 * Picks the read of this family from the route key. Unknown routes (the gateway's $default) get
 * 404, and a known path under another method 405; neither needs a key or touches a store.
 */
function routeMiddleware(family: Family): MiddlewareObj<Event, Result, Error, CallContext> {
  const own = new Map<string, ReadDef>();
  for (const route of routes()) if (route.read && route.target === family) own.set(routeKey(route), route.read);
  const all = routes();
  return {
    name: 'route',
    before: (request) => {
      const read = own.get(request.event.routeKey);
      if (read) {
        request.context.call.read = read;
        return;
      }
      const path = request.event.rawPath;
      if (all.some((r) => matchPath(r.path, path))) throw new MethodNotAllowed();
      throw new NotFound('route');
    },
  };
}

/** Parse and validate the query and path, then resolve the analysis inside the key's reach. */
function inputMiddleware(): MiddlewareObj<Event, Result, Error, CallContext> {
  return {
    name: 'input',
    before: (request) => {
      const call = request.context.call;
      const read = call.read as ReadDef;
      const raw = { ...parseQuery(read, request.event.rawQueryString), ...(request.event.pathParameters ?? {}) };
      const prepared = prepareRead(read, call.identity!, raw);
      call.input = prepared.input;
      if (prepared.analysis) call.analysis = prepared.analysis;
    },
  };
}

/** The middy chain of a read family (DESIGN §2), in the order the call meets it. */
export function restHandler(family: Family, services: Services) {
  return keyedChain(services, routeMiddleware(family))
    .use(inputMiddleware())
    .handler(async (_event, context) => {
      const call = context.call;
      const read = call.read as ReadDef;
      const ctx = readContext(services, call.requestId, call.identity!, call.budget!, call.analysis);
      const body = await timed(call, 'data', () => read.run(ctx, call.input ?? {}));
      return jsonResponse(200, body);
    });
}
