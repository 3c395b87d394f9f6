import type { MiddlewareObj } from '@middy/core';
import { NotFound } from '../errors.js';
import { timed, type CallContext } from '../middleware/call.js';
import { jsonResponse } from '../middleware/envelope.js';
import { BASE_PATH } from './paths.js';
import { prepareRead, readContext } from '../reads/execute.js';
import type { ReadDef } from '../reads/types.js';
import type { Services } from '../store/services.js';
import { keyedChain, type Event, type Result } from './chain.js';
import { parseQuery } from './input.js';

/**
 * Picks the read from the route key. The gateway sends a family function only the routes of its own
 * reads (unknown paths and other methods go to $default, answered by the contract function), so any
 * other key is a wiring fault: 404, before the key is checked or a store touched.
 */
function routeMiddleware(own: readonly ReadDef[]): MiddlewareObj<Event, Result, Error, CallContext> {
  const byKey = new Map(own.map((read) => [`GET ${BASE_PATH}${read.path}`, read]));
  return {
    name: 'route',
    before: (request) => {
      const read = byKey.get(request.event.routeKey);
      if (!read) throw new NotFound('route');
      request.context.call.read = read;
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

/**
 * The middy chain of a read family (DESIGN §2), in the order the call meets it. `own` is the family's
 * part of the read table (shared/reads/<family>/index.ts): the bundle holds those reads and no other.
 */
export function restHandler(own: readonly ReadDef[], services: Services) {
  return keyedChain(services, routeMiddleware(own))
    .use(inputMiddleware())
    .handler(async (_event, context) => {
      const call = context.call;
      const read = call.read as ReadDef;
      const ctx = readContext(services, call.requestId, call.identity!, call.budget!, call.analysis);
      const body = await timed(call, 'data', () => read.run(ctx, call.input ?? {}));
      return jsonResponse(200, body);
    });
}
