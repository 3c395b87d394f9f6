import type { GeoErrorCode, ListReadName, RateLimit } from './types.js';

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

/**
 * `paginate` reached the end of what the API lets it reach while the list still holds more: the last
 * page said `truncated` and gave no way on (a one-page read such as `listRuns`, whose largest page is
 * smaller than the list). Thrown after every item that was got has been yielded, so a loop has them all;
 * it is not a GeoApiError, since every call succeeded: what is missing is items, not an answer.
 */
export class GeoIncompleteListError extends Error {
  override readonly name = 'GeoIncompleteListError';
  /** The list read, as its method is named (`listRuns`). */
  readonly read: ListReadName;
  /** Items yielded, each once. */
  readonly yielded: number;
  /** The list's `total` as its last page stated it. */
  readonly total: number;
  /** Why no call can reach the rest, for people (it may be reworded). */
  readonly reason: string;

  constructor(init: { read: ListReadName; yielded: number; total: number; reason: string }) {
    super(`${init.read} gave ${init.yielded} of ${init.total} items: ${init.reason}`);
    this.read = init.read;
    this.yielded = init.yielded;
    this.total = init.total;
    this.reason = init.reason;
  }
}
