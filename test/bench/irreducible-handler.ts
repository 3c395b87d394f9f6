import { dynamo, pool, signer } from './irreducible-clients.js';
import { reply } from './irreducible-reply.js';

/**
 * The yardstick for a family's cold start: what no read can do without — pg, the
 * DynamoDB document client, the RDS signer and zod imported, a pool and the clients built at module
 * scope as the services build them — and nothing of ours. It answers without any I/O: the I/O of a
 * first request is counted apart (irreducible-io-handler.ts).
 */
export const handler = async (): Promise<{ statusCode: number; body: string }> => ({
  statusCode: 200,
  body: JSON.stringify(
    reply.parse({ ok: pool.totalCount === 0 && typeof dynamo.send === 'function' && typeof signer.getAuthToken === 'function' }),
  ),
});
