import type { MiddlewareObj } from '@middy/core';
import { Unauthorized } from '../errors.js';
import { fingerprint, SECRET_PATTERN } from '../keys.js';
import type { Caller } from '../store/caller.js';
import { type CallContext, timed } from './call-state.js';
import type { Event } from './response.js';

// The scheme is case-insensitive (RFC 7235 §2.1); the secret is not.
const BEARER = /^bearer (\S+)$/i;

/**
 * The secret from `Authorization: Bearer geo_live_...`, or null. The header must be exactly that form:
 * one header (API Gateway joins repeated headers with commas), scheme "Bearer", one space, no trailing space.
 */
export function bearerSecret(headers: Event['headers']): string | null {
  const value = headers?.authorization ?? headers?.Authorization;
  if (typeof value !== 'string') return null;
  const match = BEARER.exec(value);
  const secret = match?.[1];
  return secret && SECRET_PATTERN.test(secret) ? secret : null;
}

/** Establishes who is calling, the plan gate and the reach, before the budget is touched (docs/contract.md#authentication). */
export function authenticateMiddleware(opts: {
  lookup: (fingerprint: string) => Promise<Caller>;
}): MiddlewareObj<Event, unknown, Error, CallContext> {
  return {
    name: 'authenticate',
    before: async (request) => {
      const secret = bearerSecret(request.event.headers);
      if (!secret) throw new Unauthorized();
      const call = request.context.call;
      call.caller = await timed(call, 'identity', () => opts.lookup(fingerprint(secret)));
    },
  };
}
