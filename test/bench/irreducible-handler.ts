import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import pg from 'pg';
import { reply } from './irreducible-reply.js';

/**
 * The yardstick for a family's cold start (issue 13): what no read can do without — pg, the DynamoDB
 * client and zod imported, a pool and a client built at module scope as the services build them — and
 * nothing of ours. It answers without any I/O: the I/O of a first request is counted apart.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
const dynamo = new DynamoDBClient({ region: process.env.AWS_REGION ?? 'us-east-1', maxAttempts: 1 });

export const handler = async (): Promise<{ statusCode: number; body: string }> => ({
  statusCode: 200,
  body: JSON.stringify(reply.parse({ ok: pool.totalCount === 0 && typeof dynamo.send === 'function' })),
});
