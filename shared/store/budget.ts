import { randomBytes } from 'node:crypto';
import type { ClientRequest } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  type AttributeValue,
  DynamoDBClient,
  GetItemCommand,
  type GetItemCommandInput,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { http, https as tls, types } from '../builtins.js';
import type { Config } from '../config/service.js';
import { RateLimited, RateLimitUnavailable } from '../errors.js';
import { logger } from '../log.js';

/** What is left of the workspace budget this minute, as the rate headers and MCP _meta report it. */
export interface BudgetState {
  limit: number;
  remaining: number;
  resetAfterSeconds: number;
}

/** The budget as callers see it (get_me's `rate_limit`, every MCP result's): the contract's names. */
export interface RateLimit {
  per_minute: number;
  remaining: number;
  reset_after_seconds: number;
}

export const rateLimitOf = (b: BudgetState): RateLimit => ({
  per_minute: b.limit,
  remaining: b.remaining,
  reset_after_seconds: b.resetAfterSeconds,
});

export interface BudgetCounter {
  /** Spends one call of the workspace's budget for the current UTC minute, or refuses. */
  consume(workspaceId: string, limit: number, now?: Date): Promise<BudgetState>;
}

/** Our own setting, then the AWS SDKs' standard overrides, then the region's public endpoint. */
export function budgetEndpoint(cfg: Config): string {
  return (
    cfg.DYNAMODB_ENDPOINT ?? cfg.AWS_ENDPOINT_URL_DYNAMODB ?? cfg.AWS_ENDPOINT_URL ?? `https://dynamodb.${cfg.AWS_REGION}.amazonaws.com`
  );
}

/** An UpdateItem's answer, and whether it answered the request sent once more (see LostOnStaleSocket). */
export interface UpdateAnswer {
  attributes: Record<string, AttributeValue> | undefined;
  resent: boolean;
}

/** The budget table's client: one UpdateItem (or its one resend), answered or refused within BUDGET_TIMEOUT_MS. */
export interface CounterClient {
  update(input: UpdateItemCommandInput): Promise<UpdateAnswer>;
  /** A strongly consistent read of one item, within the same bound. */
  read(input: GetItemCommandInput): Promise<Record<string, AttributeValue> | undefined>;
  destroy(): void;
}

/** Errors of requests lost before any answer on a socket the agent had reused: see markStaleResets. */
const lostOnStaleSocket = new WeakSet<object>();

/** Errors answered to the request sent once more: the first may have been applied. */
const answeredToResend = new WeakSet<object>();

/**
 * Marks the error of a request that went out on a reused keep-alive socket and was reset (ECONNRESET,
 * EPIPE) before any answer. Either the server had closed that idle connection (a Lambda frozen between
 * calls finds them so) and the request never reached the counter, or the counter applied it and the
 * answer was lost: the request may go once more, and the counter's per-call token makes that resend
 * count once (createBudgetCounter). reuseSocket runs while the request is being built, so this listener
 * precedes the SDK's own and the mark is set before the SDK sees the error.
 */
function markStaleResets(request: ClientRequest): void {
  let answered = false;
  request.once('response', () => {
    answered = true;
  });
  request.prependListener('error', (err: NodeJS.ErrnoException) => {
    if (!answered && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) lostOnStaleSocket.add(err);
  });
}

class StaleSocketHttpAgent extends http.Agent {
  override reuseSocket(socket: Duplex, request: ClientRequest): void {
    super.reuseSocket(socket, request);
    markStaleResets(request);
  }
}

class StaleSocketHttpsAgent extends tls.Agent {
  override reuseSocket(socket: Duplex, request: ClientRequest): void {
    super.reuseSocket(socket, request);
    markStaleResets(request);
  }
}

/** A request lost on a stale keep-alive connection before any answer, raised through the SDK to update(). */
class LostOnStaleSocket extends Error {
  constructor(readonly code: string) {
    super('the request was reset on a reused connection before any answer');
    this.name = 'LostOnStaleSocket';
  }
}

type HandleArgs = Parameters<NodeHttpHandler['handle']>;

/**
 * The SDK's HTTP handler, telling a request lost on a stale connection (LostOnStaleSocket) from every
 * other failure, so that update() can send it once more through the SDK (the SDK makes one attempt: its
 * retry step is a pass-through, see createDynamoClient).
 */
class StaleSocketAware {
  readonly metadata: NodeHttpHandler['metadata'];
  constructor(private readonly inner: NodeHttpHandler) {
    this.metadata = inner.metadata;
  }
  async handle(request: HandleArgs[0], options?: HandleArgs[1]) {
    try {
      return await this.inner.handle(request, options);
    } catch (err) {
      if (lostOnStaleSocket.has(err as object)) throw new LostOnStaleSocket((err as NodeJS.ErrnoException).code ?? 'ECONNRESET');
      throw sameRealm(err);
    }
  }
  updateHttpClientConfig(key: never, value: never): void {
    this.inner.updateHttpClientConfig(key, value);
  }
  httpHandlerConfigs() {
    return this.inner.httpHandlerConfigs();
  }
  destroy(): void {
    this.inner.destroy();
  }
}

/**
 * A socket error made by Node's core in another realm than the SDK's (code run inside a vm, as jest runs
 * it) fails the SDK's instanceof Error and comes out of it rewrapped, without its errno: it is remade here.
 */
function sameRealm(err: unknown): never {
  if (err instanceof Error || !types.isNativeError(err)) throw err;
  throw Object.assign(new Error(err.message), { name: err.name, code: (err as NodeJS.ErrnoException).code });
}

/**
 * Credential values this process has signed with: a log line that would carry one has it replaced
 * (defence in depth: budgetCause already logs no text the counter wrote).
 */
const secrets = new Set<string>();

/** A counter fault given up on at the deadline: no answer, or not a whole one, within BUDGET_TIMEOUT_MS. */
class CounterTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

/**
 * The SDK's steps the counter does without, each costing CPU on every call: the retry step (the SDK
 * makes one attempt; the one resend is update()'s), replaced by a pass-through of the same name because
 * the signing step is placed after it; the logger step (the SDK logs nothing we keep); and the user-agent
 * step, which formats the SDK's name, version, platform and the call's feature list again on every call.
 * The user agent is still the SDK's own (its defaultUserAgentProvider, formatted as its step formats it,
 * once), so DynamoDB, and the deployment rehearsal, still see which client called; only the per-call
 * feature list (`m/...`) is left out.
 */
function leanStack(client: DynamoDBClient): void {
  client.middlewareStack.add((next) => next, {
    name: 'retryMiddleware',
    tags: ['RETRY'],
    step: 'finalizeRequest',
    priority: 'high',
    override: true,
  });
  client.middlewareStack.remove('loggerMiddleware');
  let agent: Promise<{ full: string; sdk: string }> | undefined;
  client.middlewareStack.add(
    (next) => async (args) => {
      agent ??= client.config.defaultUserAgentProvider().then((pairs) => {
        const sections = pairs.map(userAgentSection);
        return { full: sections.join(' '), sdk: sections.filter((x) => x.startsWith('aws-sdk-')).join(' ') };
      });
      const { full, sdk } = await agent;
      const request = args.request as { headers?: Record<string, string> };
      if (request.headers) {
        request.headers['user-agent'] = full;
        if (sdk) request.headers['x-amz-user-agent'] = sdk;
      }
      return next(args);
    },
    { name: 'getUserAgentMiddleware', step: 'build', priority: 'low', tags: ['SET_USER_AGENT', 'USER_AGENT'], override: true },
  );
}

/** One `name/value` section of the SDK's user agent, escaped as the SDK's user-agent step escapes it. */
function userAgentSection([name, version]: readonly [string, (string | undefined)?]): string {
  const escapedName = name
    .split('/')
    .map((part) => part.replace(/[^!$%&'*+\-.^_`|~\w]/g, '-'))
    .join('/');
  const cut = escapedName.indexOf('/');
  const prefix = escapedName.substring(0, cut);
  const rest = prefix === 'api' ? escapedName.substring(cut + 1).toLowerCase() : escapedName.substring(cut + 1);
  const value = version?.replace(/[^!$%&'*+\-.^_`|~\w#]/g, '-');
  return [prefix, rest, value]
    .filter((part): part is string => part !== undefined && part.length > 0)
    .reduce((acc, part, i) => (i === 1 ? `${acc}/${part}` : `${acc}#${part}`));
}

/**
 * The budget table's client, the AWS SDK's DynamoDBClient (the values typed by hand: one item, three
 * numbers, so the document client's marshalling layer is left out):
 *  - one attempt: a slow or failing counter must refuse the call quickly, never serve it unguarded. The
 *    one exception is a request lost on a stale keep-alive connection before any answer, sent once more
 *    on a new connection within the same bound (the counter's per-call token makes it count once);
 *  - the middleware stack resolved once (cacheMiddleware: sends carry no per-call options), no retry or
 *    logger step, the user agent formatted once (leanStack). DynamoDB's client has no checksum step to turn off (it takes no
 *    requestChecksumCalculation setting);
 *  - the whole exchange (credentials, signing, connection, request, answer body) raced against a timer
 *    of BUDGET_TIMEOUT_MS, so nothing the SDK does can outlast the bound; a socket silent that long is
 *    destroyed by the HTTP handler (requestTimeout), so a counter that never answers holds no socket;
 *  - keep-alive connections (the agents above, 50 sockets, as the SDK's default agent);
 *  - credentials from the environment Lambda provides (the SDK's environment provider, not its whole
 *    default chain, which would go on to files, SSO, container and instance metadata when the
 *    environment has none); a local endpoint (DYNAMODB_ENDPOINT, dynalite) takes any, so without them
 *    it gets dummy ones.
 */
export function createDynamoClient(cfg: Config): CounterClient {
  const endpoint = budgetEndpoint(cfg);
  const agentOptions = { keepAlive: true, maxSockets: 50 };
  const secure = new URL(endpoint).protocol === 'https:';
  const environment = fromEnv();
  const local = cfg.DYNAMODB_ENDPOINT !== undefined;
  const timeoutMs = cfg.BUDGET_TIMEOUT_MS;
  const credentials = async () => {
    try {
      const found = await environment();
      for (const value of [found.accessKeyId, found.secretAccessKey, found.sessionToken]) if (value) secrets.add(value);
      return found;
    } catch (err) {
      if (local) return { accessKeyId: 'local', secretAccessKey: 'local' };
      throw err;
    }
  };
  const sdkLog = (message: unknown) => logger.warn('aws sdk', { message: redact(String(message)) });
  const client = new DynamoDBClient({
    endpoint,
    region: cfg.AWS_REGION,
    credentials,
    maxAttempts: 1,
    cacheMiddleware: true,
    endpointDiscoveryEnabled: false,
    requestHandler: new StaleSocketAware(
      new NodeHttpHandler({
        ...(secure ? { httpsAgent: new StaleSocketHttpsAgent(agentOptions) } : { httpAgent: new StaleSocketHttpAgent(agentOptions) }),
        connectionTimeout: timeoutMs,
        requestTimeout: timeoutMs,
        // The SDK's HTTP handler warns (socket pool at capacity) through this, else through console.
        logger: { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: sdkLog, error: sdkLog },
      }),
    ),
  });
  leanStack(client);

  /** `work`, given the time its bound ends, raced against that bound. */
  const bounded = <T>(work: (deadline: number) => Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      // Timers run before I/O callbacks in a turn of the event loop: after the loop was busy (a local
      // store computing in process), an answer already received would lose to its own timer. One more
      // turn (setImmediate runs after I/O) lets it be read first; a late answer still loses.
      timer = setTimeout(() => setImmediate(() => reject(new CounterTimeout(timeoutMs))), timeoutMs);
    });
    return Promise.race([work(performance.now() + timeoutMs), deadline]).finally(() => clearTimeout(timer));
  };

  return {
    update(input) {
      return bounded(async (deadline) => {
        try {
          const out = await client.send(new UpdateItemCommand(input));
          return { attributes: out.Attributes, resent: false };
        } catch (err) {
          if (!(err instanceof LostOnStaleSocket) || performance.now() >= deadline) throw err;
        }
        try {
          const out = await client.send(new UpdateItemCommand(input));
          return { attributes: out.Attributes, resent: true };
        } catch (err) {
          if (typeof err === 'object' && err !== null) answeredToResend.add(err);
          throw err;
        }
      });
    },
    read(input) {
      // A read changes nothing: lost on a stale connection, it simply goes once more.
      return bounded(async (deadline) => {
        try {
          return (await client.send(new GetItemCommand(input))).Item;
        } catch (err) {
          if (!(err instanceof LostOnStaleSocket) || performance.now() >= deadline) throw err;
        }
        return (await client.send(new GetItemCommand(input))).Item;
      });
    },
    destroy() {
      client.destroy();
    },
  };
}

/** Credential values replaced, and anything longer than a log field needs cut. */
function redact(text: string): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('[redacted]');
  return out.length > 200 ? `${out.slice(0, 200)}...` : out;
}

/** An identifier-shaped value (an error type, a request id), else nothing: never free text. */
const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_.:-]{0,99}$/;
function identifier(value: unknown): string | undefined {
  if (typeof value !== 'string' || !IDENTIFIER.test(value)) return undefined;
  const clean = redact(value);
  return clean === value ? value : undefined;
}

interface SdkFault {
  name?: unknown;
  code?: unknown;
  $metadata?: { httpStatusCode?: unknown; requestId?: unknown };
}

/**
 * The log form of a counter failure: the error's name, DynamoDB's HTTP status and request id, the
 * socket errno, and a message of ours. Never the error's own message: the counter's error text can
 * echo the request (AWS's signature-mismatch text quotes the canonical request, with the session token
 * in it), and the SDK's parse errors quote the answer's body.
 */
function budgetCause(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error || types.isNativeError(err)))
    return { fault: 'budget', message: 'the counter call failed with a non-error value' };
  const e = err as Error & SdkFault;
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;
  const requestId = identifier(e.$metadata?.requestId);
  const errno = typeof e.code === 'string' && /^E[A-Z0-9_]{1,40}$/.test(e.code) ? e.code : undefined;
  let message: string;
  if (err instanceof CounterTimeout) message = err.message;
  else if (e.name === 'CredentialsProviderError')
    message = 'no AWS credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)';
  else if (status !== undefined) message = `the counter answered HTTP ${status} with an error or an answer that could not be read`;
  else if (errno !== undefined) message = 'the connection to the counter failed';
  else message = 'the counter call failed before any answer';
  return {
    fault: 'budget',
    name: identifier(e.name) ?? 'Error',
    ...(errno ? { errno } : {}),
    ...(status !== undefined ? { http_status: status } : {}),
    ...(requestId ? { aws_request_id: requestId } : {}),
    message,
  };
}

/** DynamoDB refusing the write because its condition failed: a real 4xx answer of that type, nothing else. */
export function conditionFailed(err: unknown): boolean {
  const e = err as SdkFault | undefined;
  const status = e?.$metadata?.httpStatusCode;
  return e?.name === 'ConditionalCheckFailedException' && typeof status === 'number' && status >= 400 && status < 500;
}

/** Why an answer is not a count between 1 and the ceiling, or undefined when it is one. */
function badCount(calls: AttributeValue | undefined, limit: number): string | undefined {
  if (calls === undefined) return 'the counter answered without a count';
  if (typeof calls.N !== 'string') return 'the counter answered a count that is not a number attribute';
  if (!/^-?[0-9]+$/.test(calls.N)) return 'the counter answered a count that is not an integer';
  const count = Number(calls.N);
  if (count < 1) return 'the counter answered a count below 1';
  if (count > limit) return 'the counter answered a count above the ceiling';
  return undefined;
}

export function secondsToMinuteEnd(now: Date): number {
  return Math.ceil((60_000 - (now.getTime() % 60_000)) / 1000);
}

/** A call's token on the counter item: the attribute of its slot, holding its sequence number. */
interface CallToken {
  attribute: string;
  sequence: string;
  release(): void;
}

/**
 * Per-call tokens that make the counter's one resend count once. Each call in flight in this process
 * holds a slot, and writes its own sequence number into its slot's attribute of the item in the same
 * atomic write that counts it; the write's condition refuses an item whose slot already holds that
 * number. A slot is held by one call at a time, so only that call's own first attempt can have written
 * the number: a resend whose first attempt was applied is refused, and the read after it tells that
 * refusal from the ceiling. The item carries one attribute per slot that wrote to it (a Lambda serves one
 * call at a time: one per execution environment that counted in that minute), about 30 bytes each.
 */
function callTokens(): () => CallToken {
  const instance = randomBytes(6).toString('base64url');
  const free: number[] = [];
  let slots = 0;
  let sequence = 0;
  return () => {
    const slot = free.pop() ?? slots++;
    sequence += 1;
    return { attribute: `call_${instance}_${slot}`, sequence: String(sequence), release: () => free.push(slot) };
  };
}

/** One counter item per workspace per calendar minute (UTC), shared by all its keys and by MCP. */
export function createBudgetCounter(client: CounterClient, table: string): BudgetCounter {
  const token = callTokens();
  return {
    async consume(workspaceId, limit, now = new Date()) {
      const minute = Math.floor(now.getTime() / 60_000);
      const reset = secondsToMinuteEnd(now);
      // A ceiling of 0 allows no call at all: refused without a write. The condition below would let
      // the first call of each minute through (its count does not exist yet).
      if (limit < 1) throw new RateLimited(reset);
      const call = token();
      const Key = { pk: { S: `budget#${workspaceId}#${minute}` } };
      const ExpressionAttributeNames = { '#calls': 'calls', '#expires': 'expires_at', '#call': call.attribute };
      let calls: AttributeValue | undefined;
      try {
        ({ calls } = await spend());
      } finally {
        call.release();
      }
      // The write succeeded, so the count after it is 1 at least and at most the ceiling: any other
      // answer is not the counter's (a proxy, a broken stand-in), and serving on it would serve unmetered.
      const problem = badCount(calls, limit);
      if (problem) throw new RateLimitUnavailable({ fault: 'budget', message: problem });
      const remaining = limit - Number(calls?.N);
      return { limit, remaining, resetAfterSeconds: remaining > 0 ? 0 : reset };

      async function spend(): Promise<{ calls: AttributeValue | undefined }> {
        try {
          const answer = await client.update({
            TableName: table,
            Key,
            // ADD creates the counter at 1 on the minute's first call; expires_at lets TTL sweep old
            // minutes; #call is this call's token (callTokens).
            UpdateExpression: 'ADD #calls :one SET #expires = if_not_exists(#expires, :expires), #call = :call',
            // Named parts of the condition:
            //  - first call of the minute: the item (hence #calls) does not exist yet;
            //  - budget left: the count before this call is below the ceiling;
            //  - not counted yet: this call's token is not on the item (only a resend can find it there).
            // Check and increment happen in one atomic write, so concurrent Lambdas cannot overspend.
            ConditionExpression: '(attribute_not_exists(#calls) OR #calls < :limit) AND (attribute_not_exists(#call) OR #call <> :call)',
            ExpressionAttributeNames,
            ExpressionAttributeValues: {
              ':one': { N: '1' },
              ':limit': { N: String(limit) },
              ':expires': { N: String((minute + 2) * 60) },
              ':call': { N: call.sequence },
            },
            ReturnValues: 'UPDATED_NEW',
          });
          return { calls: answer.attributes?.calls };
        } catch (err) {
          if (!conditionFailed(err)) throw new RateLimitUnavailable(budgetCause(err));
          if (!answeredToResend.has(err as object)) throw new RateLimited(reset);
        }
        // The resend was refused: either the ceiling, or its first attempt was applied and its answer lost.
        let item: Record<string, AttributeValue> | undefined;
        try {
          item = await client.read({
            TableName: table,
            Key,
            ConsistentRead: true,
            ProjectionExpression: '#calls, #call',
            ExpressionAttributeNames: { '#calls': 'calls', '#call': call.attribute },
          });
        } catch (err) {
          throw new RateLimitUnavailable(budgetCause(err));
        }
        if (item?.[call.attribute]?.N !== call.sequence) throw new RateLimited(reset);
        return { calls: item.calls };
      }
    },
  };
}
