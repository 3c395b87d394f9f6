import type { ClientRequest } from 'node:http';
import type { Duplex } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { DynamoDBDocumentClient, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
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

/** The budget table's client: one UpdateItem, answered or refused within BUDGET_TIMEOUT_MS. */
export interface CounterClient {
  update(input: UpdateCommandInput): Promise<Record<string, unknown> | undefined>;
  destroy(): void;
}

/**
 * A count as DynamoDB wrote it on the wire (the `N` string), kept apart from strings (`S`) so that only
 * a number attribute can pass for a count.
 */
class WireNumber {
  constructor(readonly digits: string) {}
}

/** Errors of requests lost before any answer on a socket the agent had reused: see markStaleResets. */
const lostOnStaleSocket = new WeakSet<object>();

/**
 * Marks the error of a request that went out on a reused keep-alive socket and was reset (ECONNRESET,
 * EPIPE) before any answer: the server closed that idle connection (a Lambda frozen between calls finds
 * them so), so the request never reached the counter and may go once more (ResendOnStaleSocket), as
 * Node's documentation of request.reusedSocket advises. reuseSocket runs while the request is being
 * built, so this listener precedes the SDK's own and the mark is set before the SDK sees the error.
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

type HandleArgs = Parameters<NodeHttpHandler['handle']>;

/**
 * The SDK's HTTP handler, with the one resend it does not make: with maxAttempts 1 the SDK's one attempt
 * is final, and its handler reports a reset as any other TimeoutError. The resend happens here, below the
 * SDK's middleware: the same signed request, under the same AbortSignal (so within the same bound).
 */
class ResendOnStaleSocket {
  readonly metadata: NodeHttpHandler['metadata'];
  constructor(private readonly inner: NodeHttpHandler) {
    this.metadata = inner.metadata;
  }
  async handle(request: HandleArgs[0], options?: HandleArgs[1]) {
    try {
      return await this.inner.handle(request, options);
    } catch (err) {
      if (lostOnStaleSocket.has(err as object) && !options?.abortSignal?.aborted)
        return this.inner.handle(request, options).catch(sameRealm);
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
 * The budget table's client, the AWS SDK's DynamoDB document client over DynamoDBClient:
 *  - one attempt (maxAttempts 1): a slow or failing counter must refuse the call quickly, never serve
 *    it unguarded. The one exception is a request lost on a stale keep-alive connection before the
 *    counter saw it, sent once more on a new connection within the same bound (ResendOnStaleSocket);
 *  - the whole exchange (credentials, signing, connection, request, answer body) is bounded by
 *    BUDGET_TIMEOUT_MS with an AbortSignal given to send, which makes the SDK's HTTP handler destroy
 *    the request, and a race against the same timer, so nothing the SDK does can outlast the bound;
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
    requestHandler: new ResendOnStaleSocket(
      new NodeHttpHandler({
        ...(secure ? { httpsAgent: new StaleSocketHttpsAgent(agentOptions) } : { httpAgent: new StaleSocketHttpAgent(agentOptions) }),
        // The SDK's HTTP handler warns (socket pool at capacity) through this, else through console.
        logger: { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: sdkLog, error: sdkLog },
      }),
    ),
  });
  const document = DynamoDBDocumentClient.from(client, {
    unmarshallOptions: { wrapNumbers: (digits: string) => new WireNumber(digits) },
  });
  const timeoutMs = cfg.BUDGET_TIMEOUT_MS;

  return {
    update(input) {
      const abort = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        // Timers run before I/O callbacks in a turn of the event loop: after the loop was busy (a local
        // store computing in process), an answer already received would lose to its own timer. One more
        // turn (setImmediate runs after I/O) lets it be read first; a late answer still loses.
        timer = setTimeout(
          () =>
            setImmediate(() => {
              const err = new CounterTimeout(timeoutMs);
              abort.abort(err);
              reject(err);
            }),
          timeoutMs,
        );
      });
      const exchange = document.send(new UpdateCommand(input), { abortSignal: abort.signal }).then((out) => out.Attributes);
      return Promise.race([exchange, deadline]).finally(() => clearTimeout(timer));
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
function conditionFailed(err: unknown): boolean {
  const e = err as SdkFault | undefined;
  const status = e?.$metadata?.httpStatusCode;
  return e?.name === 'ConditionalCheckFailedException' && typeof status === 'number' && status >= 400 && status < 500;
}

/** Why an answer is not a count between 1 and the ceiling, or undefined when it is one. */
function badCount(calls: unknown, limit: number): string | undefined {
  if (calls === undefined) return 'the counter answered without a count';
  if (!(calls instanceof WireNumber)) return 'the counter answered a count that is not a number attribute';
  if (!/^-?[0-9]+$/.test(calls.digits)) return 'the counter answered a count that is not an integer';
  const count = Number(calls.digits);
  if (count < 1) return 'the counter answered a count below 1';
  if (count > limit) return 'the counter answered a count above the ceiling';
  return undefined;
}

export function secondsToMinuteEnd(now: Date): number {
  return Math.ceil((60_000 - (now.getTime() % 60_000)) / 1000);
}

/** One counter item per workspace per calendar minute (UTC), shared by all its keys and by MCP. */
export function createBudgetCounter(client: CounterClient, table: string): BudgetCounter {
  return {
    async consume(workspaceId, limit, now = new Date()) {
      const minute = Math.floor(now.getTime() / 60_000);
      const reset = secondsToMinuteEnd(now);
      // A ceiling of 0 allows no call at all: refused without a write. The condition below would let
      // the first call of each minute through (its count does not exist yet).
      if (limit < 1) throw new RateLimited(reset);
      let attributes: Record<string, unknown> | undefined;
      try {
        attributes = await client.update({
          TableName: table,
          Key: { pk: `budget#${workspaceId}#${minute}` },
          // ADD creates the counter at 1 on the minute's first call; expires_at lets TTL sweep old minutes.
          UpdateExpression: 'ADD #calls :one SET #expires = if_not_exists(#expires, :expires)',
          // Named parts of the condition:
          //  - first call of the minute: the item (hence #calls) does not exist yet;
          //  - budget left: the count before this call is below the ceiling.
          // Check and increment happen in one atomic write, so concurrent Lambdas cannot overspend.
          ConditionExpression: 'attribute_not_exists(#calls) OR #calls < :limit',
          ExpressionAttributeNames: { '#calls': 'calls', '#expires': 'expires_at' },
          ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':expires': (minute + 2) * 60 },
          ReturnValues: 'UPDATED_NEW',
        });
      } catch (err) {
        if (conditionFailed(err)) throw new RateLimited(reset);
        throw new RateLimitUnavailable(budgetCause(err));
      }
      // The write succeeded, so the count after it is 1 at least and at most the ceiling: any other
      // answer is not the counter's (a proxy, a broken stand-in), and serving on it would serve unmetered.
      const calls = attributes?.calls;
      const problem = badCount(calls, limit);
      if (problem) throw new RateLimitUnavailable({ fault: 'budget', message: problem });
      const remaining = limit - Number((calls as WireNumber).digits);
      return { limit, remaining, resetAfterSeconds: remaining > 0 ? 0 : reset };
    },
  };
}
