import type { GeoErrorCode, RateLimit } from './types.js';

/**
 * Every failed call: an error body of the API (its `code`, `message`, `param`, `request_id`), an answer
 * that is not the API's JSON (`unexpected_response`, with the HTTP status), or no answer at all
 * (`network_error`, `timeout`; status 0). Branch on `code`, never on `message`.
 */
export class GeoApiError extends Error {
  override readonly name = 'GeoApiError';
  readonly code: GeoErrorCode;
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  /** The parameter to blame, on some `invalid_request`. */
  readonly param: string | null;
  /** The `X-Request-Id` of the answer: quote it when reporting a problem. */
  readonly requestId: string | null;
  /** Seconds to wait before calling again, when the answer said (`Retry-After`). */
  readonly retryAfter: number | null;
  /** The budget the answer stated, when it stated one (not on 401 or 403). */
  readonly rateLimit: RateLimit | null;

  constructor(init: {
    code: GeoErrorCode;
    status: number;
    message: string;
    param?: string | null;
    requestId?: string | null;
    retryAfter?: number | null;
    rateLimit?: RateLimit | null;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.param = init.param ?? null;
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
    this.rateLimit = init.rateLimit ?? null;
  }
}

/** True when `error` is a GeoApiError, optionally with one of `codes`. */
export function isGeoApiError(error: unknown, ...codes: GeoErrorCode[]): error is GeoApiError {
  return error instanceof GeoApiError && (codes.length === 0 || codes.includes(error.code));
}
