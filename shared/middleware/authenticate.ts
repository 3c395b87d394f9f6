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

/** The analysis a REST call names: its path parameter, as the input step will read it. */
export const pathAnalysis = (event: Event): string | undefined => event.pathParameters?.analysis;

/**
 * Establishes who is calling, the plan gate and the reach, before the budget is touched
 * (docs/contract.md#authentication). The analysis the call names (`reference`: the path's by default) is
 * resolved inside the reach by the same statement, so the read that follows needs no round trip of its
 * own for it. A last_used_at stamp the lookup sent to the writer is waited for (a bounded wait) before the
 * reply, whether the call was served or refused.
 */
export function authenticateMiddleware(opts: {
  lookup: (fingerprint: string, analysis?: string) => Promise<Caller>;
  reference?: (event: Event) => string | undefined;
}): MiddlewareObj<Event, unknown, Error, CallContext> {
  const reference = opts.reference ?? pathAnalysis;
  const stamped = async (request: { context: CallContext }): Promise<void> => {
    await request.context.call?.caller?.stamped;
  };
  return {
    name: 'authenticate',
    before: async (request) => {
      const secret = bearerSecret(request.event.headers);
      if (!secret) throw new Unauthorized();
      const call = request.context.call;
      const analysis = reference(request.event);
      const fp = fingerprint(secret);
      call.caller = await timed(call, 'caller', () => (analysis === undefined ? opts.lookup(fp) : opts.lookup(fp, analysis)));
    },
    after: stamped,
    onError: stamped,
  };
}
