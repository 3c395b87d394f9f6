import { reads } from '../reads/registry.js';
import type { Family, ReadDef } from '../reads/types.js';
import { BASE_PATH } from './paths.js';

export { BASE_PATH, matchPath } from './paths.js';

/**
 * Every function behind the gateway: the read families, the MCP endpoint, and `openapi`, which serves
 * the contract and answers every request no route takes (the gateway's $default route).
 */
export type Target = Family | 'mcp' | 'openapi';

/** The gateway's catch-all: unknown paths (404) and known paths under another method (405, with Allow). */
export const DEFAULT_ROUTE_KEY = '$default';
export const DEFAULT_TARGET: Target = 'openapi';

export interface Route {
  method: 'GET' | 'HEAD' | 'POST';
  /** API Gateway route path, e.g. /api/v1/analyses/{analysis}/metrics */
  path: string;
  target: Target;
  read?: ReadDef;
}

let cached: readonly Route[] | undefined;

/** The gateway's routes, derived from the read table once per process; nothing else opens a route. */
export function routes(): readonly Route[] {
  // HEAD answers as GET without the body (RFC 9110 §9.3.2), from the same function, so every GET route
  // has its HEAD twin; a HEAD of a read is a call like its GET (it spends the budget).
  const reading = (method: 'GET' | 'HEAD') => [
    ...reads.map((read): Route => ({ method, path: BASE_PATH + read.path, target: read.family, read })),
    { method, path: `${BASE_PATH}/openapi.json`, target: 'openapi' } satisfies Route,
  ];
  cached ??= [
    ...reading('GET'),
    ...reading('HEAD'),
    // MCP Streamable HTTP is POST. GET (a server stream) and DELETE (end a session) fall to $default,
    // which answers 405 with Allow: POST: a stateless server has neither.
    { method: 'POST', path: `${BASE_PATH}/mcp`, target: 'mcp' },
  ];
  return cached;
}

export function routeKey(route: Pick<Route, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}
