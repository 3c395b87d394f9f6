import { uuid } from '#shared/reads/contracts/common.js';
import * as z from '#shared/reads/contracts/zod.js';

/**
 * docs/contract.md#error-body, the body of every refusal. `codes` narrows `code` to those a given response
 * can carry, so the OpenAPI document states per status which codes to expect.
 */
export function errorEnvelope(codes?: readonly [string, ...string[]]) {
  return z.object({
    error: z.object({
      code: (codes ? z.enum(codes) : z.string()).describe('Stable code; client logic keys on it.'),
      message: z.string().describe('Fixed English text for humans; may be reworded, never match on it.'),
      request_id: uuid.describe('Equal to the X-Request-Id header of the same response; quote it when reporting a problem.'),
      param: z
        .string()
        .optional()
        .describe('The offending parameter (query key, path parameter or tool argument); present on invalid_request when one is to blame.'),
    }),
  });
}

export const errorSchema = errorEnvelope().meta({
  id: 'error',
  description: 'The error body: one key `error` holding code, message and request_id (and param where one parameter is to blame).',
});
