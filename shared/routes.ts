import { reads } from './reads/registry.js';
import type { Family, ReadDef } from './reads/types.js';

export const BASE_PATH = '/api/v1';

/** Every function behind the gateway: the read families, the MCP endpoint, the OpenAPI document. */
export type Target = Family | 'mcp' | 'openapi';

export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  /** API Gateway route path, e.g. /api/v1/analyses/{analysis}/metrics */
  path: string;
  target: Target;
  read?: ReadDef;
}

let cached: readonly Route[] | undefined;

/** The gateway's routes, derived from the read table once per process; nothing else opens a route. */
export function routes(): readonly Route[] {
  cached ??= [
    ...reads.map((read): Route => ({ method: 'GET', path: BASE_PATH + read.path, target: read.family, read })),
    { method: 'GET', path: `${BASE_PATH}/openapi.json`, target: 'openapi' },
    // MCP Streamable HTTP is POST; GET and DELETE reach the function so it can answer 405 itself.
    { method: 'POST', path: `${BASE_PATH}/mcp`, target: 'mcp' },
    { method: 'GET', path: `${BASE_PATH}/mcp`, target: 'mcp' },
    { method: 'DELETE', path: `${BASE_PATH}/mcp`, target: 'mcp' },
  ];
  return cached;
}

export function routeKey(route: Pick<Route, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}

/** Matches a concrete path against a route path; a {param} is one non-empty segment, URL-decoded. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i += 1) {
    const w = want[i] as string;
    const g = got[i] as string;
    if (w.startsWith('{')) {
      if (g === '') return null;
      try {
        params[w.slice(1, -1)] = decodeURIComponent(g);
      } catch {
        return null;
      }
    } else if (w !== g) {
      return null;
    }
  }
  return params;
}
