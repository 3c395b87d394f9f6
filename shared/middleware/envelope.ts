import { randomUUID } from 'node:crypto';
import { types } from '../builtins.js';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ApiError, InternalError, errorBody } from '../errors.js';
import { countCall, logger } from '../log.js';
import type { Call, CallContext } from './call.js';

type Req = Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, CallContext>;

/** Headers every response carries, success or failure (SPEC §4.3, DESIGN §3); the local adapter's own refusals too. */
export function baseHeaders(requestId: string): Record<string, string> {
  return {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-request-id': requestId,
  };
}

/** Budget headers exist only once the budget step ran: never on 401/403, always on served calls. */
function budgetHeaders(call: Call): Record<string, string> {
  if (!call.budget) return {};
  return {
    'x-ratelimit-limit': String(call.budget.limit),
    'x-ratelimit-remaining': String(call.budget.remaining),
    'x-ratelimit-reset': String(call.budget.resetAfterSeconds),
  };
}

export function jsonResponse(status: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return { statusCode: status, headers: {}, body: JSON.stringify(body) };
}

/** Server-Timing (W3C): where the time of this call went, for callers and for the benchmark split. */
function timingHeader(call: Call): Record<string, string> {
  const parts = Object.entries(call.timings).map(([stage, ms]) => `${stage};dur=${ms}`);
  return parts.length > 0 ? { 'server-timing': parts.join(', ') } : {};
}

/**
 * The one log line of a request (fields stable, for CloudWatch Logs Insights and metric filters) and
 * its count per error code. Never the secret: the key appears by id only.
 */
function logCall(call: Call, status: number, method?: string): void {
  logger.info('request', {
    request_id: call.requestId,
    method,
    read: call.read?.name,
    key_id: call.identity?.key.id,
    workspace_id: call.identity?.workspace.id,
    status,
    error_code: call.error?.code,
    duration_ms: Math.round((performance.now() - call.startedAt) * 100) / 100,
    identity_ms: call.timings.identity,
    budget_ms: call.timings.budget,
    data_ms: call.timings.data,
  });
  countCall(call.read?.name, call.error?.code);
}

/**
 * A refusal as the caller may see it: typed errors as they are; anything else becomes internal_error,
 * logged in full under the request id and shown to nobody. REST and MCP tool calls both go through here.
 */
export function asApiError(err: unknown, requestId: string, where: Record<string, unknown> = {}): ApiError {
  if (err instanceof ApiError) {
    logFault(err, requestId, where);
    return err;
  }
  logger.error('unhandled fault', { request_id: requestId, ...where, error: err as Error, cause: causeOf(err) });
  return new InternalError(err);
}

/** A cause as a plain log object: classified store and budget causes as they are, errors by name, code and message. */
function causeOf(cause: unknown): Record<string, unknown> {
  // isNativeError: socket errors come from Node's core, another realm than the code under jest's vm.
  if (cause instanceof Error || types.isNativeError(cause)) {
    const code = (cause as { code?: unknown }).code;
    const inner = (cause as { cause?: unknown }).cause;
    return {
      name: cause.name,
      ...(typeof code === 'string' ? { code } : {}),
      message: cause.message,
      ...(inner && typeof inner === 'object' && !(inner instanceof Error) ? inner : {}),
    };
  }
  return cause && typeof cause === 'object' ? (cause as Record<string, unknown>) : { message: String(cause) };
}

/**
 * A refusal caused by a fault (store unavailable, a configuration fault, the budget counter failing)
 * gets its own line with the cause: SQLSTATE, errno or message, phase. Refusals of the caller's own
 * making (401, 404, 422, 429) carry no cause and log nothing here.
 */
function logFault(err: ApiError, requestId: string, where: Record<string, unknown>): void {
  if (err.cause === undefined) return;
  // `code`, not `error_code`: the alarms' metric filters count request lines by error_code, once per call.
  const line = { request_id: requestId, ...where, code: err.code, status: err.status, cause: causeOf(err.cause) };
  if (err.status >= 500 && err.status !== 503) logger.error('fault', line);
  else logger.warn('fault', line);
}

/**
 * Outermost step: gives the call its request id, and turns whatever comes out (a body, a typed
 * refusal, an unknown fault) into the one response shape. Unknown faults are logged in full and
 * shown to nobody.
 */
export function envelopeMiddleware(): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, CallContext> {
  const finish = (request: Req, response: APIGatewayProxyStructuredResultV2): void => {
    const call = request.context.call;
    const extra = call.error?.headers() ?? {};
    response.headers = { ...response.headers, ...baseHeaders(call.requestId), ...budgetHeaders(call), ...timingHeader(call), ...extra };
    request.response = response;
    logCall(call, response.statusCode ?? 200, request.event.requestContext?.http?.method);
  };
  return {
    name: 'envelope',
    before: (request) => {
      request.context.call = { requestId: randomUUID(), startedAt: performance.now(), timings: {} };
    },
    after: (request) => {
      finish(request, request.response ?? jsonResponse(200, null));
    },
    onError: (request) => {
      const call = request.context.call;
      const err = request.error;
      const apiError = asApiError(err, call.requestId);
      call.error = apiError;
      if (apiError.code === 'rate_limited' && apiError.retryAfter !== undefined) {
        call.budget = { limit: call.identity?.plan.perMinute ?? 0, remaining: 0, resetAfterSeconds: apiError.retryAfter };
      }
      finish(request, jsonResponse(apiError.status, errorBody(apiError, call.requestId)));
    },
  };
}
