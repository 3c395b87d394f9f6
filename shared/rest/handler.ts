import type { MiddlewareObj } from '@middy/core';
import { keyedChain } from '../chain/keyed-chain.js';
import { NotFound } from '../errors.js';
import { budgetMiddleware } from '../middleware/budget.js';
import { type CallContext, settled, timed } from '../middleware/call-state.js';
import type { Event, Result } from '../middleware/response.js';
import { jsonResponse } from '../middleware/response.js';
import { RESPONSE_ROOM_BYTES, responseBytes, withinResponse } from '../middleware/response-bound.js';
import { prepareRead, readContext } from '../reads/execute.js';
import { fitted } from '../reads/fit.js';
import type { ReadDef } from '../reads/types.js';
import type { Services } from '../store/services.js';
import { BASE_PATH } from './paths.js';
import { parseQuery } from './query.js';

/**
 * Picks the read from the route key. The gateway sends a family function only the routes of its own
 * reads (unknown paths and other methods go to $default, answered by the contract function), so any
 * other key is a wiring fault: 404, before the key is checked or a store touched.
 */
function routeMiddleware(own: readonly ReadDef[]): MiddlewareObj<Event, Result, Error, CallContext> {
  const byKey = new Map<string, ReadDef>(
    own.flatMap((read) => ['GET', 'HEAD'].map((method) => [`${method} ${BASE_PATH}${read.path}`, read])),
  );
  return {
    name: 'route',
    before: (request) => {
      const read = byKey.get(request.event.routeKey);
      if (!read) throw new NotFound('route');
      request.context.call.read = read;
    },
  };
}

/** Turns the query string into values, validates them with the path, and resolves the analysis inside the key's reach. */
function inputMiddleware(): MiddlewareObj<Event, Result, Error, CallContext> {
  return {
    name: 'input',
    before: (request) => {
      const call = request.context.call;
      const read = settled(call, 'read');
      const raw = { ...parseQuery(read, request.event.rawQueryString), ...(request.event.pathParameters ?? {}) };
      call.prepared = prepareRead(read, settled(call, 'caller'), raw);
    },
  };
}

/**
 * The middy chain of a read family (docs/decisions.md#the-path-of-a-call), in the order the call meets
 * it. `own` is the family's part of the read table (shared/reads/<family>/index.ts): the bundle holds
 * those reads and no other.
 */
export function restHandler(own: readonly ReadDef[], services: Services) {
  return keyedChain(services, routeMiddleware(own))
    .use(budgetMiddleware({ counter: services.counter }))
    .use(inputMiddleware())
    .handler(async (_event, context) => {
      const call = context.call;
      const { input, analysis } = settled(call, 'prepared');
      const ctx = readContext(services, call.requestId, settled(call, 'caller'), settled(call, 'budget'), analysis);
      const read = settled(call, 'read');
      const reply = await timed(call, 'data', () => read.run(ctx, input));
      const body = JSON.stringify(reply);
      if (!read.cut || withinResponse(body)) return { statusCode: 200, headers: {}, body };
      return jsonResponse(
        200,
        fitted(reply, read.cut, (page) => responseBytes(page === reply ? body : JSON.stringify(page)), RESPONSE_ROOM_BYTES),
      );
    });
}
