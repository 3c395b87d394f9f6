import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Signer } from '@aws-sdk/rds-signer';
import pg from 'pg';

/**
 * What every serving function builds at module scope, and nothing of ours: a pg pool, the
 * AWS SDK's DynamoDB document client over DynamoDBClient (one attempt, as the budget client), and the
 * RDS signer the IAM token needs. The signer signs nothing here: the functions under the bench connect
 * with a password, as they do locally, so neither side pays a signature.
 */
const region = process.env.AWS_REGION ?? 'us-east-1';
const url = new URL(process.env.DATABASE_URL ?? 'postgres://localhost:5432/geo');

export const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
export const dynamo = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    region,
    maxAttempts: 1,
    ...(process.env.DYNAMODB_ENDPOINT
      ? { endpoint: process.env.DYNAMODB_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  }),
);
export const signer = new Signer({ hostname: url.hostname, port: Number(url.port || 5432), username: url.username || 'geo', region });
