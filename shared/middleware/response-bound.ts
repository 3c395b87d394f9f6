import type { MiddlewareObj } from '@middy/core';
import { InternalError } from '../errors.js';
import type { CallContext } from './call-state.js';
import type { Event, Result } from './response.js';

/** The largest response a Lambda function may return to a synchronous invocation (API Gateway's). */
export const LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024;

/** Room for what the envelope adds after this step: the headers every response carries. */
const HEADROOM_BYTES = 16 * 1024;

/** What a response may weigh at this step, before the headers every response carries are added. */
export const RESPONSE_ROOM_BYTES = LAMBDA_RESPONSE_BYTES - HEADROOM_BYTES;

/**
 * JSON writes one UTF-16 unit of a string in at most 6 bytes (`\u001f`), so a body of fewer units than
 * this cannot make the response too large, and is not measured.
 */
const UNMEASURED_UNITS = Math.floor(RESPONSE_ROOM_BYTES / 6) - 4096;

/** What a response with this body weighs as the function returns it: the body once more as a JSON string. */
export function responseBytes(body: string): number {
  return Buffer.byteLength(JSON.stringify({ statusCode: 200, headers: {}, body }));
}

/** Whether a response with this body can be returned, measured only when it could be too large. */
export const withinResponse = (body: string): boolean => body.length < UNMEASURED_UNITS || responseBytes(body) <= RESPONSE_ROOM_BYTES;

/** The cause a too-large reply is logged with: its size and the bound. */
export class ResponseTooLarge extends Error {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`the response would weigh ${bytes} bytes as the function returns it, over the ${limit} a Lambda function may return`);
    this.name = 'ResponseTooLarge';
  }
}

/**
 * A reply the function could not return: past 6 MB, Lambda fails the invocation and API Gateway answers
 * its own bare 500, without the error envelope, the request id or the log line saying why. The data
 * contract bounds what every read can weigh (docs/data-contract.md#bounds), and a page that could outgrow
 * the limit is cut to fit before it gets here (shared/reads/fit.ts); a store written past its bounds
 * (triggers disabled) or a fault could still make a reply too large. Such a reply becomes internal_error
 * here, with its size logged, so the caller gets the envelope and the request id.
 */
export function responseBoundMiddleware(): MiddlewareObj<Event, Result, Error, CallContext> {
  return {
    name: 'response-bound',
    after: (request) => {
      const response = request.response;
      if (!response || (response.body ?? '').length < UNMEASURED_UNITS) return;
      const bytes = Buffer.byteLength(JSON.stringify(response));
      if (bytes > RESPONSE_ROOM_BYTES) throw new InternalError(new ResponseTooLarge(bytes, LAMBDA_RESPONSE_BYTES));
    },
  };
}
