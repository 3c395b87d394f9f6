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
 * The one UpdateItem of the I/O yardsticks, as the document client takes it (plain values): an atomic
 * increment, what the budget counter does, on an item of its own.
 */
export const counterUpdate = () => ({
  TableName: process.env.BUDGET_TABLE,
  Key: { pk: 'irreducible' },
  UpdateExpression: 'ADD #c :one',
  ExpressionAttributeNames: { '#c': 'calls' },
  ExpressionAttributeValues: { ':one': 1 },
  ReturnValues: 'UPDATED_NEW' as const,
});
