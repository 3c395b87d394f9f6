import { GeoApiError, GeoIncompleteListError } from './errors.js';
import { OPERATIONS, type ReadMethods } from './operations.js';
import type {
  CallOptions,
  ClientOptions,
  FetchLike,
  GeoErrorCode,
  ListReadName,
  RateLimit,
  ReadItem,
  ReadName,
  ReadParams,
  ReadResponse,
  ReadResult,
  RetryEvent,
} from './types.js';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;
// Without a Retry-After, the one retry of a transient fault waits about a second (a little jitter, so
// clients that failed together do not come back together).
const BACKOFF_MS = 1_000;
// A 429's Retry-After counts whole seconds to the end of the budget's minute; the margin keeps the retry
// from landing just before that boundary.
const RETRY_AFTER_MARGIN_MS = 50;

/** The codes retried once (transient by the contract), besides network faults and a gateway's own 502-504. */
const TRANSIENT_CODES: readonly GeoErrorCode[] = ['rate_limit_unavailable', 'upstream_timeout', 'network_error', 'timeout'];

type AnyParams = Record<string, string | number | boolean | null | undefined>;

interface ListPage {
  items: unknown[];
  next_cursor: string | null;
  truncated: boolean;
  total: number;
}

/** Told after each page `paginate` read. */
export interface PageEvent<K extends ListReadName = ListReadName> {
  read: K;
  /** 1 for the first page. */
  page: number;
  items: number;
  /** Items yielded so far, this page included. */
  yielded: number;
  /** The list's `total` as this page stated it. */
  total: number;
  /**
   * The page's whole answer: what it says besides its items (the window of `context`, the tracked brand
   * of `listCompetitors`, the categories of `listSources`), which the items alone do not carry.
   */
  body: ReadResult<K>;
}

export interface PaginateOptions<K extends ListReadName = ListReadName> extends CallOptions {
  onPage?: (event: PageEvent<K>) => void;
}

/** The parameters may be left out where the read requires none (`paginate('listAnalyses')`). */
type PaginateArgs<K extends ListReadName> =
  Record<string, never> extends ReadParams<K>
    ? [params?: ReadParams<K>, options?: PaginateOptions<K>]
    : [params: ReadParams<K>, options?: PaginateOptions<K>];

function environment(): Record<string, string | undefined> {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
}

function header(headers: Headers, name: string): number | null {
  const raw = headers.get(name);
  if (raw === null || !/^\d+$/.test(raw.trim())) return null;
  return Number(raw.trim());
}

function retryAfterSeconds(headers: Headers): number | null {
  const raw = headers.get('retry-after');
  if (raw === null) return null;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function rateLimitOf(headers: Headers): RateLimit | null {
  const limit = header(headers, 'x-ratelimit-limit');
  const remaining = header(headers, 'x-ratelimit-remaining');
  const resetSeconds = header(headers, 'x-ratelimit-reset');
  if (limit === null || remaining === null || resetSeconds === null) return null;
  return { limit, remaining, resetSeconds };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The identity of a list item, for the guard that never yields one twice. */
function itemKey(item: unknown): string | undefined {
  if (!item || typeof item !== 'object') return undefined;
  const o = item as { id?: unknown; prompt?: { id?: unknown } };
  if (typeof o.id === 'string') return o.id;
  if (typeof o.prompt?.id === 'string') return o.prompt.id;
  return undefined;
}

/**
 * The client: one method per read (from the generated table), `request` for a read with its status,
 * request id and budget, `paginate` over any list read, and the budget the last answer stated.
 */
export class GeoClientCore {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #fetch: FetchLike;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #onRetry: ((event: RetryEvent) => void) | undefined;
  #rateLimit: RateLimit | null = null;

  constructor(options: ClientOptions = {}) {
    const env = environment();
    const apiKey = options.apiKey ?? env.GEO_API_KEY;
    if (!apiKey) throw new TypeError('No API key: pass apiKey to createClient, or set GEO_API_KEY.');
    const baseUrl = options.baseUrl ?? env.GEO_BASE_URL;
    if (!baseUrl) throw new TypeError('No base URL: pass baseUrl to createClient, or set GEO_BASE_URL (it ends with /api/v1).');
    try {
      new URL(baseUrl);
    } catch {
      throw new TypeError(`The base URL is not a URL: ${baseUrl}`);
    }
    if (!options.fetch && typeof globalThis.fetch !== 'function')
      throw new TypeError('No fetch: this runtime has no global fetch; pass one to createClient.');
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#apiKey = apiKey;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxRetries = Math.max(0, options.maxRetries ?? DEFAULT_MAX_RETRIES);
    this.#onRetry = options.onRetry;
  }

  /** The key's budget as the last answer that stated one said it; null before any such answer. */
  get rateLimit(): RateLimit | null {
    return this.#rateLimit;
  }

  /** The URL of a read with these parameters (path parameters filled in, the others as the query). */
  url(read: ReadName, params: AnyParams = {}): string {
    const op = OPERATIONS[read];
    if (!op) throw new TypeError(`Unknown read: ${String(read)}`);
    const pathNames = new Set<string>();
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      pathNames.add(name);
      const value = params[name];
      if (value === undefined || value === null || value === '') throw new TypeError(`${read} needs the parameter ${name}`);
      return encodeURIComponent(String(value));
    });
    const query = new URLSearchParams();
    // Keys the read does not know go to the server too, which answers invalid_request naming them.
    for (const [name, value] of Object.entries(params)) {
      if (pathNames.has(name) || value === undefined || value === null) continue;
      query.append(name, String(value));
    }
    const qs = query.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }

  /** A read with its status, request id and budget; retried as the client options say. */
  async request<K extends ReadName>(read: K, params?: ReadParams<K>, options: CallOptions = {}): Promise<ReadResponse<ReadResult<K>>> {
    const url = this.url(read, (params ?? {}) as AnyParams);
    let retries = 0;
    let transientRetried = false;
    for (;;) {
      try {
        return (await this.#once(url, options.signal)) as ReadResponse<ReadResult<K>>;
      } catch (error) {
        if (!(error instanceof GeoApiError) || retries >= this.#maxRetries) throw error;
        const transient =
          TRANSIENT_CODES.includes(error.code) || (error.code === 'unexpected_response' && [502, 503, 504].includes(error.status));
        let delayMs: number;
        // A gateway's own throttling (a 429 without the API's body) is a spent budget too.
        if (error.code === 'rate_limited' || (error.code === 'unexpected_response' && error.status === 429))
          delayMs = (error.retryAfter ?? 1) * 1000 + RETRY_AFTER_MARGIN_MS;
        else if (transient && !transientRetried) {
          transientRetried = true;
          delayMs = error.retryAfter !== null ? error.retryAfter * 1000 : Math.round(BACKOFF_MS * (1 + Math.random() / 4));
        } else throw error;
        retries += 1;
        this.#onRetry?.({ read, attempt: retries, delayMs, error });
        await sleep(delayMs, options.signal);
      }
    }
  }

  /**
   * Every item of a list read, page after page (cursor or offset), until the API says the list ends. A
   * list that still says `truncated` where no call can go on throws a GeoIncompleteListError once every
   * item got has been yielded: paging never ends quietly short of the list.
   */
  async *paginate<K extends ListReadName>(read: K, ...args: PaginateArgs<K>): AsyncGenerator<ReadItem<K>, void, undefined> {
    const [params, options = {}] = args as [ReadParams<K> | undefined, PaginateOptions<K> | undefined];
    const op = OPERATIONS[read];
    let current: AnyParams = { ...(params as AnyParams) };
    // Under paginate `limit` is a page size, never a cut. A read that pages takes the caller's size, or
    // the largest (fewer calls of the budget per item); a one-page read always gets the largest, since its
    // one page is all that any call can reach, and a smaller one would only leave items out.
    if (op.maxLimit !== null && (current.limit === undefined || op.paging === 'single')) current.limit = op.maxLimit;
    const seen = new Set<string>();
    let yielded = 0;
    for (let pageNo = 1; ; pageNo++) {
      const { data } = await this.request(read, current as ReadParams<K>, options);
      const page = data as unknown as ListPage;
      for (const item of page.items) {
        const key = itemKey(item);
        if (key !== undefined) {
          if (seen.has(key)) continue;
          seen.add(key);
        }
        yielded += 1;
        yield item as ReadItem<K>;
      }
      options.onPage?.({ read, page: pageNo, items: page.items.length, yielded, total: page.total, body: data as ReadResult<K> });
      let reason: string;
      if (op.paging === 'cursor') {
        if (page.next_cursor && page.next_cursor !== current.cursor) {
          current = { ...current, cursor: page.next_cursor };
          continue;
        }
        reason = 'the API said the list goes on (truncated) but gave no next_cursor';
      } else if (op.paging === 'offset') {
        if (page.truncated && page.items.length > 0) {
          current = { ...current, offset: Number(current.offset ?? 0) + page.items.length };
          continue;
        }
        reason = `the API said the list goes on (truncated) but its page at offset ${Number(current.offset ?? 0)} was empty`;
      } else {
        reason =
          op.maxLimit === null
            ? 'it returns one page and has no cursor or offset to reach the others'
            : `it returns one page of at most ${op.maxLimit} items and has no cursor or offset to reach the others`;
      }
      if (page.truncated) throw new GeoIncompleteListError({ read, yielded, total: page.total, reason });
      return;
    }
  }

  async #once(url: string, signal: AbortSignal | undefined): Promise<ReadResponse<unknown>> {
    if (signal?.aborted) throw signal.reason;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.#timeoutMs);
    const onAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let status: number;
    let headers: Headers;
    let text: string;
    try {
      const res = await this.#fetch(url, {
        method: 'GET',
        headers: { authorization: `Bearer ${this.#apiKey}`, accept: 'application/json' },
        signal: controller.signal,
      });
      status = res.status;
      headers = res.headers;
      text = await res.text();
    } catch (cause) {
      if (signal?.aborted) throw signal.reason;
      if (timedOut) {
        throw new GeoApiError({ code: 'timeout', status: 0, message: `No answer within ${this.#timeoutMs} ms`, cause });
      }
      throw new GeoApiError({ code: 'network_error', status: 0, message: `No answer: ${describe(cause)}`, cause });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    const rateLimit = rateLimitOf(headers);
    if (rateLimit) this.#rateLimit = rateLimit;
    const requestId = headers.get('x-request-id') ?? headers.get('apigw-requestid');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (status >= 200 && status < 300 && body !== null && typeof body === 'object') return { data: body, status, requestId, rateLimit };
    const error = (body as { error?: { code?: unknown; message?: unknown; param?: unknown; request_id?: unknown } } | undefined)?.error;
    if (status >= 400 && error && typeof error.code === 'string') {
      const message = typeof error.message === 'string' ? error.message : error.code;
      throw new GeoApiError({
        code: error.code as GeoErrorCode,
        status,
        message: status === 404 && error.code === 'not_found' ? withBaseUrlHint(message, this.baseUrl) : message,
        param: typeof error.param === 'string' ? error.param : null,
        requestId: typeof error.request_id === 'string' ? error.request_id : requestId,
        retryAfter: retryAfterSeconds(headers),
        rateLimit,
      });
    }
    const type = headers.get('content-type') ?? 'no content type';
    throw new GeoApiError({
      code: 'unexpected_response',
      status,
      message: `HTTP ${status} without the API's JSON (${type})`,
      requestId,
      retryAfter: retryAfterSeconds(headers),
      rateLimit,
    });
  }
}

/**
 * A base address without `/api/v1` (`http://127.0.0.1:3000`) reaches the API's host, which answers every
 * read with a bare 404 `not_found` "No such endpoint": the one mistake that answer cannot tell apart, so
 * the message says what to try. The code stays the API's; only the text for people gains the hint.
 */
function withBaseUrlHint(message: string, baseUrl: string): string {
  let path: string;
  try {
    path = new URL(baseUrl).pathname.replace(/\/+$/, '');
  } catch {
    return message;
  }
  if (!message.startsWith('No such endpoint') || path.endsWith('/api/v1')) return message;
  const base = baseUrl.replace(/\/+$/, '');
  return `${message} The base URL ${base} does not end with /api/v1, as the API's base address does: try ${base}/api/v1.`;
}

function describe(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = (cause as { cause?: unknown }).cause;
  const code = inner && typeof inner === 'object' && 'code' in inner ? ` (${String((inner as { code: unknown }).code)})` : '';
  return `${cause.message}${code}`;
}

/** The client: `GeoClientCore` with one method per read. */
export type GeoClient = GeoClientCore & ReadMethods;

/**
 * A client for the API. The key defaults to `GEO_API_KEY`, the base address to `GEO_BASE_URL`; both are
 * required one way or the other (there is no default address).
 */
export function createClient(options: ClientOptions = {}): GeoClient {
  const core = new GeoClientCore(options);
  const methods: Record<string, unknown> = {};
  for (const read of Object.keys(OPERATIONS) as ReadName[]) {
    methods[read] = (params?: AnyParams, callOptions?: CallOptions) =>
      core.request(read, params as never, callOptions).then((response) => response.data);
  }
  return Object.assign(core, methods) as unknown as GeoClient;
}
