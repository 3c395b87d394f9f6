import type * as z from 'zod';
import { InvalidRequest } from '../errors.js';
import { echoed } from '../formats.js';
import { pathParams, type ReadDef } from '../reads/types.js';
import { numberKind } from '../reads/validate.js';

/** A decimal number as written by a person: no exponent, hex, leading zeros or spaces. */
const CANONICAL_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;
/**
 * An integer as docs/contract.md#common-parameters rule 1 takes it: digits only. No sign, no decimal point (`1.0`, `5.`, and
 * `0.9999999999999999999`, which JavaScript would round to 1), no exponent, and no more digits than a
 * safe integer holds (beyond 2^53 distinct strings read as the same number).
 */
const CANONICAL_INTEGER = /^(0|[1-9]\d{0,15})$/;

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
    if (!Object.hasOwn(shape, key) || inPath.has(key)) throw new InvalidRequest(`Unknown query parameter "${echoed(key)}".`, echoed(key));
    if (Object.hasOwn(out, key)) throw new InvalidRequest(`Query parameter "${key}" is repeated.`, key);
    const kind = numberKind(shape[key]);
    out[key] = kind ? queryNumber(kind, value) : value;
  }
  return out;
}
