/**
 * The public types the client is built on, derived from the generated document types (schema.ts) and the
 * generated table of reads (operations.ts): a read's parameters are its path and query parameters in one
 * object, its result the body of its 200 answer.
 */
import type { API_ERROR_CODES, OPERATIONS } from './operations.js';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };

/** The schemas of the document by name: `Schema<'metrics'>`, `Schema<'answer_ref'>`... */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** A read's method name: `getMe`, `listAnalyses`, ..., `getAnswer`. */
export type ReadName = keyof typeof OPERATIONS;

type Operation<K extends ReadName> = operations[(typeof OPERATIONS)[K]['operationId']];
type Parameters_<K extends ReadName> = Operation<K>['parameters'];
type PathPart<P> = P extends { path: infer X } ? (X extends object ? X : unknown) : unknown;
type QueryPart<P> = P extends { query?: infer X } ? ([X] extends [undefined] ? unknown : NonNullable<X>) : unknown;
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** A read's parameters in one object: its path parameters (required) and its query parameters (optional). */
export type ReadParams<K extends ReadName> = Simplify<PathPart<Parameters_<K>> & QueryPart<Parameters_<K>>>;

/** The body of a read's 200 answer. */
export type ReadResult<K extends ReadName> = Operation<K>['responses'][200]['content']['application/json'];

/** The reads that return a list of `items`: the ones `paginate` walks. */
export type ListReadName = {
  [K in ReadName]: (typeof OPERATIONS)[K]['paging'] extends null ? never : K;
}[ReadName];

/** One item of a list read. */
export type ReadItem<K extends ListReadName> = ReadResult<K> extends { items: Array<infer I> } ? I : never;

/** The code of an error body: the contract's codes and those answered in front of the reads. */
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/**
 * Codes of the client's own, for a call that got no usable answer: `network_error` (no answer: refused,
 * reset, name not resolved), `timeout` (no answer within `timeoutMs`), `unexpected_response` (an answer that
 * is not the API's JSON: a gateway's own 5xx, a proxy page).
 */
export type ClientErrorCode = 'network_error' | 'timeout' | 'unexpected_response';

export type GeoErrorCode = ApiErrorCode | ClientErrorCode;

/** The key's per-minute budget as the last answer stated it. */
export interface RateLimit {
  /** Calls allowed per minute. */
  limit: number;
  /** Calls still available this minute. */
  remaining: number;
  /** Seconds until the next call is available; 0 while budget remains. */
  resetSeconds: number;
}

/** What a retry hook is told before the client waits. */
export interface RetryEvent {
  read: ReadName;
  /** 1 for the first retry. */
  attempt: number;
  /** How long the client waits before retrying, in milliseconds. */
  delayMs: number;
  /** The error that caused the retry. */
  error: import('./errors.js').GeoApiError;
}

/** A fetch as the client needs it: the global one, or any compatible function (tests, proxies, polyfills). */
export type FetchLike = (
  input: string,
  init: { method: string; headers: Record<string, string>; signal: AbortSignal },
) => Promise<Response>;

export interface ClientOptions {
  /** The API key (`geo_live_...`); default: the `GEO_API_KEY` environment variable. */
  apiKey?: string;
  /** The base address, ending with `/api/v1`; default: the `GEO_BASE_URL` environment variable. */
  baseUrl?: string;
  /** Default: the global `fetch`. */
  fetch?: FetchLike;
  /** Bound on one attempt, in milliseconds; default 30000. */
  timeoutMs?: number;
  /** Retries of one call, all causes together; default 2; 0 turns retrying off. */
  maxRetries?: number;
  /** Called before each wait for a retry (to show it on a dashboard, to log it). */
  onRetry?: (event: RetryEvent) => void;
}

export interface CallOptions {
  /** Abandons the call (and any wait for a retry). */
  signal?: AbortSignal;
}

/** A read's body with what its answer said besides. */
export interface ReadResponse<T> {
  data: T;
  status: number;
  requestId: string | null;
  rateLimit: RateLimit | null;
}
