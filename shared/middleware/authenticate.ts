import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { Unauthorized } from '../errors.js';
import { SECRET_PATTERN, fingerprint } from '../keys.js';
import type { Identity } from '../reads/types.js';
import { timed, type CallContext } from './call.js';

// The scheme is case-insensitive (RFC 7235 §2.1); the secret is not.
const BEARER = /^bearer (\S+)$/i;

/**
 * The secret from `Authorization: Bearer geo_live_...`, or null. The header must be exactly that form:
 * one header (API Gateway joins repeated headers with commas), scheme "Bearer", one space, no trailing space.
 */
export function bearerSecret(headers: APIGatewayProxyEventV2['headers']): string | null {
  const value = headers?.authorization ?? headers?.Authorization;
  if (typeof value !== 'string') return null;
  const match = BEARER.exec(value);
  const secret = match?.[1];
  return secret && SECRET_PATTERN.test(secret) ? secret : null;
}

/** Establishes who is calling, the plan gate and the reach, before the budget is touched (SPEC §4.3). */
export function authenticateMiddleware(opts: {
  lookup: (fingerprint: string) => Promise<Identity>;
}): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, CallContext> {
  return {
    name: 'authenticate',
    before: async (request) => {
      const secret = bearerSecret(request.event.headers);
      if (!secret) throw new Unauthorized();
      const call = request.context.call;
      call.identity = await timed(call, 'identity', () => opts.lookup(fingerprint(secret)));
    },
  };
}
