import type { MiddlewareObj } from '@middy/core';
import type { Config } from '../config/service.js';
import { OriginNotAllowed } from '../errors.js';
import type { CallContext } from '../middleware/call-state.js';
import type { Event, Result } from '../middleware/response.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether a browser page of this origin may call /mcp. Loopback origins are the user's own machine
 * (a DNS-rebinding page has the attacker's name as origin, never localhost): local tools such as the
 * MCP Inspector's web UI, and the MCP conformance suite's expectation for a local server.
 */
export function originAllowed(origin: string, allowed: Config['MCP_ALLOWED_ORIGINS']): boolean {
  if (!URL.canParse(origin)) return false;
  const u = new URL(origin);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  return allowed.origins.has(u.origin) || (allowed.loopback && LOOPBACK_HOSTS.has(u.hostname));
}

/**
 * What is refused before any key check: an Origin that is present and not allowed (MCP transport
 * spec, "Security Warning": against DNS rebinding of a local server, and web pages calling with a key
 * they got hold of). No method check: only POST /mcp reaches this function (shared/rest/routes.ts for the
 * local adapter, lib/constructs/read-api.ts for the gateway, both pinned by test/infra/routes.test.ts);
 * GET, DELETE and the rest take $default, whose function answers 405 with Allow: POST from the contract.
 */
export function originGateMiddleware(allowed: Config['MCP_ALLOWED_ORIGINS']): MiddlewareObj<Event, Result, Error, CallContext> {
  return {
    name: 'mcp-gate',
    before: (request) => {
      const origin = request.event.headers?.origin;
      if (origin !== undefined && !originAllowed(origin, allowed)) throw new OriginNotAllowed();
    },
  };
}
