import { createDynamoDb, type DynamoDb, DynamoDbError } from '../aws/dynamodb.js';
import { types } from '../builtins.js';
import type { Config } from '../config/service.js';
import { RateLimited, RateLimitUnavailable } from '../errors.js';

/** What is left of the workspace budget this minute, as the rate headers and MCP _meta report it. */
export interface BudgetState {
  limit: number;
  remaining: number;
  resetAfterSeconds: number;
}

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

/**
 * The budget table's client. One attempt per call, bounded by BUDGET_TIMEOUT_MS: a slow or failing
 * counter must refuse the call quickly, never serve it unguarded (the one exception, a request lost on a
 * stale keep-alive connection before the counter saw it, is in shared/aws/dynamodb.ts). Credentials come from the environment
 * (the function's role, as Lambda provides it); a local endpoint (dynalite) takes any.
 */
export function createDynamoClient(cfg: Config): DynamoDb {
  const local = { accessKeyId: 'local', secretAccessKey: 'local' };
  return createDynamoDb({
    endpoint: budgetEndpoint(cfg),
    region: cfg.AWS_REGION,
    timeoutMs: cfg.BUDGET_TIMEOUT_MS,
    credentials: () =>
      cfg.AWS_ACCESS_KEY_ID && cfg.AWS_SECRET_ACCESS_KEY
        ? { accessKeyId: cfg.AWS_ACCESS_KEY_ID, secretAccessKey: cfg.AWS_SECRET_ACCESS_KEY, sessionToken: cfg.AWS_SESSION_TOKEN }
        : cfg.DYNAMODB_ENDPOINT
          ? local
          : undefined,
  });
}

/** The log form of a counter failure: DynamoDB's error type, HTTP status and message, or the socket errno. */
function budgetCause(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error || types.isNativeError(err))) return { fault: 'budget', message: String(err) };
  const e = err as Error & { code?: unknown };
  return {
    fault: 'budget',
    name: e.name,
    ...(typeof e.code === 'string' ? { errno: e.code } : {}),
    ...(err instanceof DynamoDbError ? { http_status: err.httpStatus } : {}),
    message: e.message,
  };
}

export function secondsToMinuteEnd(now: Date): number {
  return Math.ceil((60_000 - (now.getTime() % 60_000)) / 1000);
}

/** One counter item per workspace per calendar minute (UTC), shared by all its keys and by MCP. */
export function createBudgetCounter(client: DynamoDb, table: string): BudgetCounter {
  return {
    async consume(workspaceId, limit, now = new Date()) {
      const minute = Math.floor(now.getTime() / 60_000);
      const reset = secondsToMinuteEnd(now);
      // A ceiling of 0 allows no call at all: refused without a write. The condition below would let
      // the first call of each minute through (its count does not exist yet).
      if (limit < 1) throw new RateLimited(reset);
      let count: number;
      try {
        const out = (await client.send('UpdateItem', {
          TableName: table,
          Key: { pk: { S: `budget#${workspaceId}#${minute}` } },
          // ADD creates the counter at 1 on the minute's first call; expires_at lets TTL sweep old minutes.
          UpdateExpression: 'ADD #calls :one SET #expires = if_not_exists(#expires, :expires)',
          // Named parts of the condition:
          //  - first call of the minute: the item (hence #calls) does not exist yet;
          //  - budget left: the count before this call is below the ceiling.
          // Check and increment happen in one atomic write, so concurrent Lambdas cannot overspend.
          ConditionExpression: 'attribute_not_exists(#calls) OR #calls < :limit',
          ExpressionAttributeNames: { '#calls': 'calls', '#expires': 'expires_at' },
          ExpressionAttributeValues: {
            ':one': { N: '1' },
            ':limit': { N: String(limit) },
            ':expires': { N: String((minute + 2) * 60) },
          },
          ReturnValues: 'UPDATED_NEW',
        })) as { Attributes?: { calls?: { N?: unknown } } };
        count = Number(out.Attributes?.calls?.N);
      } catch (err) {
        if (err instanceof DynamoDbError && err.type === 'ConditionalCheckFailedException') throw new RateLimited(reset);
        throw new RateLimitUnavailable(budgetCause(err));
      }
      if (!Number.isInteger(count)) throw new RateLimitUnavailable({ fault: 'budget', message: 'the counter answered without a count' });
      const remaining = Math.max(0, limit - count);
      return { limit, remaining, resetAfterSeconds: remaining > 0 ? 0 : reset };
    },
  };
}
