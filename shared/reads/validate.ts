import * as z from 'zod';
import { InvalidRequest } from '../errors.js';
import { echoed } from '../formats.js';
import type { ReadDef } from './types.js';

export type NumberKind = 'integer' | 'number' | undefined;

/** Whether a field of a read's input takes a number, and which kind: the REST face converts query strings by it. */
export function numberKind(field: z.ZodType | undefined): NumberKind {
  let t: unknown = field;
  while (t instanceof z.ZodOptional || t instanceof z.ZodDefault || t instanceof z.ZodNullable) t = t.unwrap();
  if (!(t instanceof z.ZodNumber)) return undefined;
  return t.isInt ? 'integer' : 'number';
}

/** Validates the merged path + query (or MCP argument) input; the first problem is reported with its parameter name. */
export function validateInput<I extends z.ZodObject>(read: ReadDef<I>, raw: Record<string, unknown>): z.infer<I> {
  const parsed = read.input.safeParse(raw);
  if (parsed.success) return parsed.data;
  // An unknown key is named first, as parseQuery does for a query string: the same rule for REST and MCP.
  const unknown = parsed.error.issues.find((i) => i.code === 'unrecognized_keys');
  if (unknown) {
    const name = echoed(unknown.keys[0] ?? '');
    throw new InvalidRequest(`Unknown parameter "${name}".`, name);
  }
  const issue = parsed.error.issues[0];
  const param = issue?.path[0];
  const name = typeof param === 'string' ? param : undefined;
  const notInteger =
    issue?.code === 'invalid_type' && name !== undefined && numberKind((read.input.shape as Record<string, z.ZodType>)[name]) === 'integer';
  const message = notInteger
    ? `"${name}" takes an integer: digits only in a query string (no sign, decimal point or exponent), a JSON integer in MCP.`
    : issue?.message && !issue.message.startsWith('Invalid input')
      ? issue.message
      : `Invalid value${name ? ` for "${name}"` : ''}.`;
  throw new InvalidRequest(message, name);
}
