import middy from '@middy/core';
import { envelope } from '../chain/envelope.js';
import type { ApiSwitch } from '../config/base.js';
import { MethodNotAllowed, NotFound } from '../errors.js';
import { apiSwitchMiddleware } from '../middleware/api-switch.js';
import type { CallContext } from '../middleware/call-state.js';
import type { Event, Result } from '../middleware/response.js';
import { BASE_PATH, matchPath } from './paths.js';
import { REFERENCE_HEADERS } from './reference-page.js';

export interface OpenApiHandlerOptions {
  apiSwitch: ApiSwitch;
  /** The exact bytes of openapi/openapi.json. */
  document: string;
  /** Where the human reference page is served, if anywhere; the index links it. */
  referencePage?: ReferencePage;
}

/**
 * The reference page: its path, and how to read its HTML when this function serves it (a deployed stage,
 * from its bundle: read on the first request for it, not at every cold start of the function, which
 * mostly answers the document and the $default route); without it, another server does (npm start, from
 * its local pages).
 */
export interface ReferencePage {
  path: string;
  html?: () => string;
}

const DOCUMENT_PATH = `${BASE_PATH}/openapi.json`;
const INDEX_PATHS = new Set([BASE_PATH, `${BASE_PATH}/`]);
const READING = new Set(['GET', 'HEAD']);

/** OAuth discovery and registration addresses, at the root or under a path (MCP clients try both). */
const OAUTH_PATH =
  /\/\.well-known\/(oauth-protected-resource|oauth-authorization-server|openid-configuration)(\/|$)|^\/(register|authorize|token)$/;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The methods a path answers, for Allow: those the document serves, HEAD beside GET, and OPTIONS. */
function allowed(served: string[]): string[] {
  return [...served, ...(served.includes('GET') ? ['HEAD'] : []), 'OPTIONS'];
}

/**
 * GET /api/v1/ (and without the slash): where to go from the base URL, so a person or a crawler that
 * tries it meets links rather than a 404.
 */
function indexBody(document: string, referencePage: ReferencePage | undefined): string {
  const info = (JSON.parse(document) as { info: { title: string; version: string } }).info;
  return JSON.stringify({
    name: info.title,
    version: info.version,
    links: {
      openapi: DOCUMENT_PATH,
      mcp: `${BASE_PATH}/mcp`,
      ...(referencePage ? { reference: referencePage.path } : {}),
    },
  });
}

/**
 * Every request no route takes (the gateway's $default), and the document: the document and the index
 * under GET or HEAD; OPTIONS on a path of the contract is 204 with Allow, another method 405 with Allow;
 * anything else 404. The contract is the route table here: it is generated from the read table, so this
 * function knows every path without bundling a single read. Refusals are thrown, so the envelope words
 * them; answers are returned from the handler, so the envelope's headers reach them too.
 */
function defaultRoute(document: string, referencePage: ReferencePage | undefined): (event: Event) => Result {
  const paths = (JSON.parse(document) as { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> }).paths;
  // A method the path takes is one the document gives a success to; GET and DELETE /mcp are described
  // too, but only with the 405 answered here.
  const serves = (op: { responses?: Record<string, unknown> } | undefined) =>
    Object.keys(op?.responses ?? {}).some((status) => status.startsWith('2'));
  const page = referencePage?.html === undefined ? undefined : { path: referencePage.path, html: referencePage.html };
  const templates = [
    { path: BASE_PATH, allow: allowed(['GET']) },
    { path: `${BASE_PATH}/`, allow: allowed(['GET']) },
    ...(page ? [{ path: page.path, allow: allowed(['GET']) }] : []),
    ...Object.entries(paths).map(([path, item]) => ({
      path: `${BASE_PATH}${path}`,
      allow: allowed(METHODS.filter((m) => serves(item[m])).map((m) => m.toUpperCase())),
    })),
  ];
  const index = indexBody(document, referencePage);
  return (event): Result => {
    const { rawPath, requestContext } = event;
    const method = requestContext.http.method;
    if (READING.has(method) && rawPath === DOCUMENT_PATH) return { statusCode: 200, headers: {}, body: document };
    if (READING.has(method) && INDEX_PATHS.has(rawPath)) return { statusCode: 200, headers: {}, body: index };
    if (page && READING.has(method) && rawPath === page.path)
      return { statusCode: 200, headers: { ...REFERENCE_HEADERS }, body: page.html() };
    const known = templates.find((t) => matchPath(t.path, rawPath));
    if (known && method === 'OPTIONS') return { statusCode: 204, headers: { allow: known.allow.join(', ') }, body: '' };
    if (known) throw new MethodNotAllowed(known.allow);
    if (!OAUTH_PATH.test(rawPath)) throw new NotFound('route');
    const auth = event.headers?.authorization;
    throw new NotFound('oauth', { keySent: typeof auth === 'string' && auth.trim() !== '' });
  };
}

/**
 * GET /api/v1/openapi.json: public (no key, no budget, no store), the generated bytes unchanged; and the
 * gateway's $default route (the index, the reference page where this function serves it, OPTIONS, 404
 * and 405). Both pass the envelope (X-Request-Id,
 * no-store, nosniff) and the switch.
 */
export function openapiHandler(opts: OpenApiHandlerOptions) {
  const answer = defaultRoute(opts.document, opts.referencePage);
  return middy<Event, Result, Error, CallContext>()
    .use(envelope())
    .use(apiSwitchMiddleware(opts.apiSwitch))
    .handler(async (event) => answer(event));
}
