import * as z from 'zod';
import { InvalidRequest } from '../errors.js';
import type { ReadDef } from '../reads/types.js';
import { pathParams } from '../reads/types.js';

/** A decimal number as written by a person: no exponent, hex, leading zeros or spaces. */
const CANONICAL_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;
/**
 * An integer as SPEC §4.1 rule 1 takes it: digits only. No sign, no decimal point (`1.0`, `5.`, and
 * `0.9999999999999999999`, which JavaScript would round to 1), no exponent, and no more digits than a
 * safe integer holds (beyond 2^53 distinct strings read as the same number).
 */
const CANONICAL_INTEGER = /^(0|[1-9]\d{0,15})$/;

type NumberKind = 'integer' | 'number' | undefined;

function numberKind(field: z.ZodType | undefined): NumberKind {
  let t: unknown = field;
  while (t instanceof z.ZodOptional || t instanceof z.ZodDefault || t instanceof z.ZodNullable) t = t.unwrap();
  if (!(t instanceof z.ZodNumber)) return undefined;
  return t.isInt ? 'integer' : 'number';
}

/** The number a query value stands for, or the value itself (a string) for zod to refuse by name. */
function queryNumber(kind: 'integer' | 'number', value: string): number | string {
  if (kind === 'number') return CANONICAL_NUMBER.test(value) ? Number(value) : value;
  return CANONICAL_INTEGER.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : value;
}

/**
 * The pairs of a raw query string. The gateway strips the `?` that separates the query from the path;
 * a second one belongs to the first key (`??limit=5` has the key `?limit`), but URLSearchParams drops
 * a leading `?` of its input, so it is kept by parsing after an empty first pair.
 */
function queryPairs(rawQuery: string): URLSearchParams {
  return new URLSearchParams(rawQuery.startsWith('?') ? `&${rawQuery}` : rawQuery);
}

/**
 * Strict reading of a raw query string against a read's input: an unknown or repeated key is refused
 * by name; numbers are converted only from their canonical form (integers: digits only), so zod
 * refuses the rest by name instead of anything being clamped, rounded or guessed. Keys are all
 * checked before any value, so the first unknown or repeated key is the one named.
 */
export function parseQuery(read: ReadDef, rawQuery: string | undefined): Record<string, unknown> {
  const shape = read.input.shape as Record<string, z.ZodType>;
  const inPath = new Set(pathParams(read.path));
  const out: Record<string, unknown> = {};
  for (const [key, value] of queryPairs(rawQuery ?? '')) {
    // Own keys only: `__proto__`, `constructor` or `toString` are "in" every object, and are no parameter.
    if (!Object.hasOwn(shape, key) || inPath.has(key)) throw new InvalidRequest(`Unknown query parameter "${key}".`, key);
    if (Object.hasOwn(out, key)) throw new InvalidRequest(`Query parameter "${key}" is repeated.`, key);
    const kind = numberKind(shape[key]);
    out[key] = kind ? queryNumber(kind, value) : value;
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
  const notInteger = issue?.code === 'invalid_type' && name !== undefined && numberKind((read.input.shape as Record<string, z.ZodType>)[name]) === 'integer';
  const message = notInteger
    ? `"${name}" takes an integer: digits only in a query string (no sign, decimal point or exponent), a JSON integer in MCP.`
    : issue?.message && !issue.message.startsWith('Invalid input')
      ? issue.message
      : `Invalid value${name ? ` for "${name}"` : ''}.`;
  throw new InvalidRequest(message, name);
}
