import * as z from 'zod';

/**
 * The reply of the yardstick handlers: the zod features any contract of this kind needs (strict objects,
 * uuids, calendar days, timestamps, enums, descriptions), so that "imports zod" loads what a real
 * contract loads, not a tree-shaken sliver.
 */
export const reply = z
  .strictObject({
    ok: z.boolean(),
    id: z.uuid().optional(),
    day: z.iso.date().optional(),
    at: z.iso.datetime({ precision: 3 }).optional(),
    state: z.enum(['a', 'b']).nullable().optional(),
  })
  .describe('irreducible')
  .meta({ id: 'irreducible_reply' });

/**
 * The one UpdateItem of the I/O yardsticks (irreducible-io-handler.ts with the SDK's client,
 * irreducible-lean-io-handler.ts with ours): the same input, so they differ by the client alone.
 */
export const counterUpdate = () => ({
  TableName: process.env.BUDGET_TABLE,
  Key: { pk: { S: 'irreducible' } },
  UpdateExpression: 'ADD #c :one',
  ExpressionAttributeNames: { '#c': 'calls' },
  ExpressionAttributeValues: { ':one': { N: '1' } },
});
