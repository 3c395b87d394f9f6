/**
 * One hierarchy for every refusal the API makes. Each error knows its HTTP status and its stable
 * `code`; the message is fixed English text. Anything that is not an ApiError becomes internal_error.
 */
export abstract class ApiError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
  /** The offending query key or parameter, where docs/contract.md#error-body asks for it. */
  readonly param?: string;
  /** Seconds before retrying, sent as Retry-After. */
  readonly retryAfter?: number;

  /**
   * `cause` (ES2022 Error.cause) is what made the service refuse: a database or budget-store error.
   * Logged with the request id (the envelope's `fault` line), never shown to the caller.
   */
  constructor(message: string, opts: { param?: string; retryAfter?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    if (opts.param !== undefined) this.param = opts.param;
    if (opts.retryAfter !== undefined) this.retryAfter = opts.retryAfter;
  }

  /**
   * The message as a face shows it. The same text everywhere, but where a message refers to a header
   * that MCP hosts do not show the model (Retry-After): there the first line of the result says it.
   */
  messageOn(_face: Face): string {
    return this.message;
  }

  /** Headers the refusal itself calls for (Retry-After, Allow...), added by the envelope to the response. */
  headers(): Record<string, string> {
    return this.retryAfter === undefined ? {} : { 'retry-after': String(this.retryAfter) };
  }
}

/** Where a refusal is read: the REST body (with its headers), or an MCP result or message. */
export type Face = 'rest' | 'mcp';

/** The realm of every Bearer challenge (RFC 6750 §3). */
export const AUTH_REALM = 'geo-measurement-api';

/**
 * `WWW-Authenticate` of a 401 (RFC 7235 §4.1 requires one; RFC 6750 §3 gives its form). The RFC 6750
 * error is invalid_token in both cases (a missing, malformed, unknown or dead key alike); the
 * description starts with our own code, so a client that shows it names the cause. Its value may
 * hold neither `"` nor `\` (RFC 6750 §3, error_description syntax), hence a text of its own.
 * No resource_metadata or scope: there is no OAuth here, and nothing for a client to discover.
 */
export function bearerChallenge(code: string, description: string): string {
  return `Bearer realm="${AUTH_REALM}", error="invalid_token", error_description="${code}: ${description}"`;
}

export class Unauthorized extends ApiError {
  readonly status = 401;
  readonly code = 'unauthorized';
  constructor() {
    super('Send the header "Authorization: Bearer <API key>" with a key that begins with geo_live_.');
  }

  override headers(): Record<string, string> {
    const hint = 'send the header Authorization: Bearer <API key> with a key that begins with geo_live_ (API keys only, no OAuth)';
    return { ...super.headers(), 'www-authenticate': bearerChallenge(this.code, hint) };
  }
}

export class KeyRevoked extends ApiError {
  readonly status = 401;
  readonly code = 'key_revoked';
  constructor() {
    super('This API key is revoked, expired, or its creator no longer has access to the workspace. Create a new key.');
  }

  override headers(): Record<string, string> {
    const hint =
      'this API key is revoked, expired, or its creator lost access to the workspace; create a new key (API keys only, no OAuth)';
    return { ...super.headers(), 'www-authenticate': bearerChallenge(this.code, hint) };
  }
}

export class PlanRequired extends ApiError {
  readonly status = 403;
  readonly code = 'plan_required';
  constructor() {
    super("The workspace's plan does not include API access.");
  }
}

export class AnalysisNotFound extends ApiError {
  readonly status = 404;
  readonly code = 'analysis_not_found';
  constructor() {
    super('No analysis with this slug or identifier is within the reach of this key.');
  }
}

/**
 * Where an OAuth client lands after a 401 (RFC 9728/8414 discovery, RFC 7591 registration, the MCP
 * SDKs' default /register, /authorize, /token): its last error is this body, so say why. Whether the
 * client sent a key is known without looking it up; which refusal it got is in the 401 itself.
 */
const NO_OAUTH = {
  keySent:
    'No OAuth here: this API authenticates with an API key, and the key this client sent was refused (401): it is unknown, revoked or expired, or its creator lost access. Create a new key in the workspace settings and send it as Authorization: Bearer geo_live_...',
  noKey:
    'No OAuth here: this API authenticates with an API key, and this client sent none (401 unauthorized). Send Authorization: Bearer geo_live_... with a key created in the workspace settings.',
};

export class NotFound extends ApiError {
  readonly status = 404;
  readonly code = 'not_found';
  /** `latest run`: the reserved word `latest` on an analysis that has never had a run. */
  constructor(what: 'group' | 'run' | 'latest run' | 'answer' | 'route' | 'oauth', opts: { keySent?: boolean } = {}) {
    super(
      what === 'route'
        ? 'No such endpoint.'
        : what === 'oauth'
          ? NO_OAUTH[opts.keySent ? 'keySent' : 'noKey']
          : what === 'latest run'
            ? 'This analysis has no run yet: nothing has been collected for it.'
            : `No ${what} with this identifier in this analysis.`,
    );
  }
}

/**
 * A browser page of another site calling the MCP endpoint (the MCP transport spec asks servers to
 * check Origin, against DNS rebinding). Decided before the key, so it spends no budget.
 */
export class OriginNotAllowed extends ApiError {
  readonly status = 403;
  readonly code = 'origin_not_allowed';
  constructor() {
    super(
      'Requests from this web origin are not allowed on the MCP endpoint. Call it from a server or a local client, or ask for the origin to be allowed.',
    );
  }
}

export class MethodNotAllowed extends ApiError {
  readonly status = 405;
  readonly code = 'method_not_allowed';
  /** The methods the path does answer, for the Allow header (RFC 9110 §15.5.6 requires it on a 405). */
  readonly allow: readonly string[];
  constructor(allow: readonly string[]) {
    super(`This endpoint only answers ${allow.join(', ')}.`);
    this.allow = allow;
  }

  override headers(): Record<string, string> {
    return { ...super.headers(), allow: this.allow.join(', ') };
  }
}

export class InvalidRequest extends ApiError {
  readonly status = 422;
  readonly code = 'invalid_request';
  constructor(message: string, param?: string) {
    super(message, param === undefined ? {} : { param });
  }
}

export class CursorExpired extends ApiError {
  readonly status = 422;
  readonly code = 'cursor_expired';
  constructor() {
    super('This cursor was produced under another window, analysis or key. Restart without a cursor.');
  }
}

export class RateLimited extends ApiError {
  readonly status = 429;
  readonly code = 'rate_limited';
  constructor(retryAfter: number) {
    super(`${RateLimited.EXHAUSTED} Wait Retry-After seconds.`, {
      retryAfter,
    });
  }

  static readonly EXHAUSTED = 'The call budget of this workspace is exhausted for the current minute.';

  /** On MCP the result's first line says the seconds to wait: no host shows the model a Retry-After header. */
  override messageOn(face: Face): string {
    return face === 'mcp' ? RateLimited.EXHAUSTED : this.message;
  }
}

/**
 * The bound on MCP messages that spend no budget (shared/store/free-messages.ts), per key and minute: the
 * contract's rate_limited, answered as an HTTP 429 since such a message has no tool result to carry it.
 * The message says the seconds itself: MCP hosts do not show a Retry-After header to the model.
 */
export class TooManyMessages extends ApiError {
  readonly status = 429;
  readonly code = 'rate_limited';
  constructor(
    readonly ceiling: number,
    retryAfter: number,
  ) {
    super(
      `This key sent its ${ceiling} protocol messages of the minute (handshakes, listings, pings, prompts, calls refused before they read data), which spend no call budget but are bounded. Retry in ${retryAfter} seconds.`,
      { retryAfter },
    );
  }
}

export class InternalError extends ApiError {
  readonly status = 500;
  readonly code = 'internal_error';
  constructor(cause?: unknown) {
    super('Something failed on our side. Retry once, then report the request id.', { cause });
  }
}

export class RateLimitUnavailable extends ApiError {
  readonly status = 503;
  readonly code = 'rate_limit_unavailable';
  constructor(cause?: unknown) {
    super('The call budget or the reach of this key could not be checked, so the call was refused. Retry shortly.', {
      retryAfter: 1,
      cause,
    });
  }
}

/** Seconds a paused Aurora Serverless cluster takes to resume: the delay worth waiting before the one retry. */
export const STORE_WAKE_SECONDS = 20;

export class UpstreamTimeout extends ApiError {
  readonly status = 503;
  readonly code = 'upstream_timeout';
  constructor(cause?: unknown) {
    super('The measurement store did not answer in time; it may be waking up (about 20 seconds). Retry once.', {
      retryAfter: STORE_WAKE_SECONDS,
      cause,
    });
  }
}

export class ApiDisabled extends ApiError {
  readonly status = 503;
  readonly code = 'api_disabled';
  constructor(retryAfter: number) {
    super('The API is switched off for everyone for now. Retry after the delay in Retry-After.', { retryAfter });
  }
}

/*
 * Refusals of the HTTP layer in front of the functions, before any route or key is known. Deployed,
 * API Gateway answers these itself (with its own bare body); the local adapter answers them in the
 * docs/contract.md#error-body envelope so that every response it sends carries X-Request-Id. Codes beyond docs/contract.md#errors.
 */

export class PayloadTooLarge extends ApiError {
  readonly status = 413;
  readonly code = 'payload_too_large';
  constructor() {
    super('The request body is larger than the 6 MB a call may carry.');
  }
}

export class HeadersTooLarge extends ApiError {
  readonly status = 431;
  readonly code = 'headers_too_large';
  constructor() {
    super('The request headers are too large.');
  }
}

export class MalformedRequest extends ApiError {
  readonly status = 400;
  readonly code = 'malformed_request';
  constructor(message = 'The request is not valid HTTP/1.1 (request line, header syntax or framing).') {
    super(message);
  }
}

/** A Host header that names no host (RFC 9112 §3.2: a server answers 400 to an invalid Host). */
export const BAD_HOST = 'The Host header names no host: send the host name of the API, with its port if it has one.';

/** A refusal as the caller may see it: typed errors as they are, anything else internal_error. */
export function toApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new InternalError(err);
}

export interface ErrorBody {
  error: { code: string; message: string; request_id: string; param?: string };
}

/** The error body (docs/contract.md#error-body); never carries a stack, SQL or the message of an unknown error. */
export function errorBody(err: ApiError, requestId: string, face: Face = 'rest'): ErrorBody {
  return {
    error: {
      code: err.code,
      message: err.messageOn(face),
      request_id: requestId,
      ...(err.param === undefined ? {} : { param: err.param }),
    },
  };
}
