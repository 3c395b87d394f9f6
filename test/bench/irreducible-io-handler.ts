import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import pg from 'pg';
import { counterUpdate, reply } from './irreducible-reply.js';

/**
 * The irreducible-dependency handler (irreducible-handler.ts) doing the irreducible I/O of a first
 * request as well: a connection and one statement to PostgreSQL, one UpdateItem to the budget table,
 * with clients built the way the services build them, and nothing of ours.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
const dynamo = new DynamoDBClient({
  region: process.env.AWS_REGION ?? 'us-east-1',
  maxAttempts: 1,
  ...(process.env.DYNAMODB_ENDPOINT
    ? { endpoint: process.env.DYNAMODB_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
    : {}),
});

export const handler = async (): Promise<{ statusCode: number; body: string }> => {
  const { rows } = await pool.query<{ ok: boolean }>('SELECT true AS ok');
  await dynamo.send(new UpdateItemCommand(counterUpdate()));
  return { statusCode: 200, body: JSON.stringify(reply.parse({ ok: rows[0]?.ok === true })) };
};
