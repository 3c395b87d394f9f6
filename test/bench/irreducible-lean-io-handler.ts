import pg from 'pg';
import { createDynamoDb } from '#shared/aws/dynamodb.js';
import { counterUpdate, reply } from './irreducible-reply.js';

/**
 * The irreducible-I/O yardstick (irreducible-io-handler.ts) with the budget client the functions carry
 * since issue 13 (shared/aws/dynamodb.ts) in place of the AWS SDK's DynamoDBClient: pg, zod and that
 * client, a connection and one statement, one UpdateItem, nothing else of ours. The stricter yardstick:
 * what no read can do without, now that the SDK client is not needed.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
const dynamo = createDynamoDb({
  endpoint: process.env.DYNAMODB_ENDPOINT ?? `https://dynamodb.${process.env.AWS_REGION ?? 'us-east-1'}.amazonaws.com`,
  region: process.env.AWS_REGION ?? 'us-east-1',
  timeoutMs: 1000,
  credentials: () => ({ accessKeyId: 'local', secretAccessKey: 'local' }),
});

export const handler = async (): Promise<{ statusCode: number; body: string }> => {
  const { rows } = await pool.query<{ ok: boolean }>('SELECT true AS ok');
  await dynamo.send('UpdateItem', counterUpdate());
  return { statusCode: 200, body: JSON.stringify(reply.parse({ ok: rows[0]?.ok === true })) };
};
