import type { MiddlewareObj } from '@middy/core';
import { countCall, logger } from '../log.js';
import type { CallContext, CallRequest } from './call-state.js';
import type { Event, Result } from './response.js';

/**
 * The one log line of a request (fields stable, for CloudWatch Logs Insights and the alarms' metric
 * filters) and its count per read and error code, written once the response is final: it goes right
 * after request-id in the chain, so its after and onError run last. Never the secret: the key appears
 * by id only.
 */
export function requestLogMiddleware(): MiddlewareObj<Event, Result, Error, CallContext> {
  const write = (request: CallRequest): void => {
    const call = request.context.call;
    logger.info('request', {
      request_id: call.requestId,
      method: request.event.requestContext?.http?.method,
      read: call.read?.name,
      key_id: call.caller?.key.id,
      workspace_id: call.caller?.workspace.id,
      // An error that nothing turned into a response reaches the runtime as a failed invocation: a 500.
      status: request.response?.statusCode ?? (request.error ? 500 : 200),
      error_code: call.error?.code,
      duration_ms: Math.round((performance.now() - call.startedAt) * 100) / 100,
      caller_ms: call.timings.caller,
      budget_ms: call.timings.budget,
      data_ms: call.timings.data,
    });
    countCall(call.read?.name, call.error?.code);
  };
  return { name: 'request-log', after: write, onError: write };
}
