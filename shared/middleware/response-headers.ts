import type { MiddlewareObj } from '@middy/core';
import type { BudgetState } from '../store/budget.js';
import type { Call, CallContext, CallRequest } from './call-state.js';
import { type Event, jsonResponse, type Result } from './response.js';

/**
 * Headers every response carries, success or failure (docs/contract.md#response-headers): the test
 * harness's own refusals of malformed HTTP use them too.
 */
export function baseHeaders(requestId: string): Record<string, string> {
  return {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-request-id': requestId,
  };
}

/** Budget headers exist only once the budget step ran: never on 401/403, always on served calls and 429. */
function budgetHeaders(budget: BudgetState | undefined): Record<string, string> {
  if (!budget) return {};
  return {
    'x-ratelimit-limit': String(budget.limit),
    'x-ratelimit-remaining': String(budget.remaining),
    'x-ratelimit-reset': String(budget.resetAfterSeconds),
  };
}

/** Whether a response has content: 204 never does; a 202 only when it has a body. HEAD keeps GET's type. */
const hasContent = (response: Result): boolean =>
  response.statusCode !== 204 && !(response.statusCode === 202 && (response.body ?? '') === '');

/** Server-Timing (W3C): where the time of this call went, for callers and for the benchmark split. */
function timingHeader(call: Call): Record<string, string> {
  const parts = Object.entries(call.timings).map(([stage, ms]) => `${stage};dur=${ms}`);
  return parts.length > 0 ? { 'server-timing': parts.join(', ') } : {};
}

/**
 * Adds the headers of the call to whatever response comes out, served or refused: the base headers,
 * the budget, Server-Timing, and those the refusal itself calls for (Retry-After, Allow,
 * WWW-Authenticate). It sits outside error-response, so a refusal's body is there when it runs.
 */
export function responseHeadersMiddleware(): MiddlewareObj<Event, Result, Error, CallContext> {
  const finish = (request: CallRequest, response: Result): void => {
    const call = request.context.call;
    const extra = call.error?.headers() ?? {};
    const { 'content-type': type, ...base } = baseHeaders(call.requestId);
    response.headers = {
      ...response.headers,
      // An answer that carries no content (OPTIONS' 204, an MCP notification's 202) names no media type;
      // one that names its own (the reference page's HTML) keeps it, every other one is JSON.
      ...(hasContent(response) ? { 'content-type': response.headers?.['content-type'] ?? type } : {}),
      ...base,
      ...budgetHeaders(call.budget),
      ...timingHeader(call),
      ...extra,
    };
    request.response = response;
  };
  return {
    name: 'response-headers',
    // A handler that returns nothing answers 200 with a JSON null.
    after: (request) => finish(request, request.response ?? jsonResponse(200, null)),
    // A refusal without a body (nothing turned the error into one) stays an error: middy rethrows it,
    // rather than this step inventing a 200.
    onError: (request) => {
      if (request.response) finish(request, request.response);
    },
  };
}
