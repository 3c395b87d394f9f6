import * as z from 'zod';
import { InvalidRequest } from '../errors.js';
import type { ReadDef } from '../reads/types.js';
import { pathParams } from '../reads/types.js';

const CANONICAL_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;

function expectsNumber(field: z.ZodType | undefined): boolean {
  let t: unknown = field;
  while (t instanceof z.ZodOptional || t instanceof z.ZodDefault || t instanceof z.ZodNullable) t = t.unwrap();
  return t instanceof z.ZodNumber;
}

/**
 * Strict reading of a raw query string against a read's input: an unknown or repeated key is refused
 * by name; numbers are converted only from their canonical decimal form (no 1e3, 0x10, 010, spaces),
 * so zod refuses the rest instead of anything being clamped or guessed.
 */
export function parseQuery(read: ReadDef, rawQuery: string | undefined): Record<string, unknown> {
  const shape = read.input.shape as Record<string, z.ZodType>;
  const inPath = new Set(pathParams(read.path));
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(rawQuery ?? '')) {
    if (!(key in shape) || inPath.has(key)) throw new InvalidRequest(`Unknown query parameter "${key}".`, key);
    if (key in out) throw new InvalidRequest(`Query parameter "${key}" is repeated.`, key);
    out[key] = expectsNumber(shape[key]) && CANONICAL_NUMBER.test(value) ? Number(value) : value;
  }
  return out;
}

/** Validates the merged path + query (or MCP argument) input; the first problem is reported with its parameter name. */
export function validateInput<I extends z.ZodObject>(read: ReadDef<I>, raw: Record<string, unknown>): z.infer<I> {
  const parsed = read.input.safeParse(raw);
  if (parsed.success) return parsed.data;
  // An unknown key is named first, as parseQuery does for a query string: the same rule for REST and MCP.
  const unknown = parsed.error.issues.find((i) => i.code === 'unrecognized_keys');
  if (unknown) throw new InvalidRequest(`Unknown parameter "${unknown.keys[0]}".`, unknown.keys[0]);
  const issue = parsed.error.issues[0];
  const param = issue?.path[0];
  const name = typeof param === 'string' ? param : undefined;
  const message = issue?.message && !issue.message.startsWith('Invalid input')
    ? issue.message
    : `Invalid value${name ? ` for "${name}"` : ''}.`;
  throw new InvalidRequest(message, name);
}
