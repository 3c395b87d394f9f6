import { types } from 'node:util';
import { ConditionalCheckFailedException, DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { Config } from './config.js';
import { RateLimited, RateLimitUnavailable } from './errors.js';
import type { BudgetState } from './reads/types.js';

export interface BudgetCounter {
  /** Spends one call of the workspace's budget for the current UTC minute, or refuses. */
  consume(workspaceId: string, limit: number, now?: Date): Promise<BudgetState>;
}

export function createDynamoClient(cfg: Config): DynamoDBClient {
  return new DynamoDBClient({
    region: cfg.AWS_REGION,
    // One attempt: a slow or failing counter must refuse the call quickly, never serve it unguarded.
    maxAttempts: 1,
    // throwOnRequestTimeout: without it @smithy/node-http-handler 4.x only logs a warning when
    // requestTimeout passes and keeps waiting, so a slow counter held the call and then served it.
    requestHandler: new NodeHttpHandler({
      connectionTimeout: cfg.BUDGET_TIMEOUT_MS,
      requestTimeout: cfg.BUDGET_TIMEOUT_MS,
      throwOnRequestTimeout: true,
    }),
    ...(cfg.DYNAMODB_ENDPOINT
      ? { endpoint: cfg.DYNAMODB_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
}

/** The log form of a counter failure: the SDK's error name, HTTP status and message, or the socket errno. */
function budgetCause(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error || types.isNativeError(err))) return { fault: 'budget', message: String(err) };
  const e = err as Error & { code?: unknown; $metadata?: { httpStatusCode?: number } };
  return {
    fault: 'budget',
    name: e.name,
    ...(typeof e.code === 'string' ? { errno: e.code } : {}),
    ...(e.$metadata?.httpStatusCode ? { http_status: e.$metadata.httpStatusCode } : {}),
    message: e.message,
  };
}

export function secondsToMinuteEnd(now: Date): number {
  return Math.ceil((60_000 - (now.getTime() % 60_000)) / 1000);
}

/** One counter item per workspace per calendar minute (UTC), shared by all its keys and by MCP. */
export function createBudgetCounter(client: DynamoDBClient, table: string): BudgetCounter {
  return {
    async consume(workspaceId, limit, now = new Date()) {
      const minute = Math.floor(now.getTime() / 60_000);
      const reset = secondsToMinuteEnd(now);
      // A ceiling of 0 allows no call at all: refused without a write. The condition below would let
      // the first call of each minute through (its count does not exist yet).
      if (limit < 1) throw new RateLimited(reset);
      let count: number;
      try {
        const out = await client.send(
          new UpdateItemCommand({
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
          }),
        );
        count = Number(out.Attributes?.calls?.N);
      } catch (err) {
        if (err instanceof ConditionalCheckFailedException) throw new RateLimited(reset);
        throw new RateLimitUnavailable(budgetCause(err));
      }
      if (!Number.isInteger(count)) throw new RateLimitUnavailable({ fault: 'budget', message: 'the counter answered without a count' });
      const remaining = Math.max(0, limit - count);
      return { limit, remaining, resetAfterSeconds: remaining > 0 ? 0 : reset };
    },
  };
}
