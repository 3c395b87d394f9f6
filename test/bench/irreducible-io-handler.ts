import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, pool, signer } from './irreducible-clients.js';
import { counterUpdate, reply } from './irreducible-reply.js';

/**
 * The irreducible-dependency handler (irreducible-handler.ts) doing the irreducible I/O of a first
 * request as well: a connection and one statement to PostgreSQL, one UpdateItem through the document
 * client's UpdateCommand, and nothing of ours. The yardstick for a family's cold start: each family's
 * start to first response is set against it.
 */
export const handler = async (): Promise<{ statusCode: number; body: string }> => {
  const { rows } = await pool.query<{ ok: boolean }>('SELECT true AS ok');
  const { Attributes } = await dynamo.send(new UpdateCommand(counterUpdate()));
  const ok = rows[0]?.ok === true && typeof Attributes?.calls === 'number' && typeof signer.getAuthToken === 'function';
  return { statusCode: 200, body: JSON.stringify(reply.parse({ ok })) };
};
