import type { MiddlewareObj, Request } from '@middy/core';
import type { CallContext } from './call-state.js';
import type { Event, Result } from './response.js';

/**
 * HEAD answers as GET without the body (RFC 9110 §9.3.2): same status and headers, Content-Length that
 * of the body a GET would get. It runs outermost, so a refusal's body goes the same way.
 */
export function headMiddleware(): MiddlewareObj<Event, Result, Error, CallContext> {
  const dropBody = (request: Request<Event, Result, Error, CallContext>) => {
    const response = request.response;
    if (request.event.requestContext?.http?.method !== 'HEAD' || !response) return;
    const body = response.body ?? '';
    const length = response.isBase64Encoded ? Buffer.from(body, 'base64').length : Buffer.byteLength(body);
    request.response = { ...response, body: '', headers: { ...response.headers, 'content-length': String(length) } };
  };
  return { name: 'head', after: dropBody, onError: dropBody };
}
