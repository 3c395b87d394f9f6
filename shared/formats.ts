/** Formats recognised across the service: one definition each. */

/**
 * A UUID in its text form: 8-4-4-4-12 hexadecimal digits, either case, whatever the version and variant bits
 * (no RFC 9562 check: the store's uuid type holds any 128 bits, and every id it holds must be usable). An
 * analysis reference of this shape names the analysis by id only; the store refuses slugs of this shape
 * (migration 010, docs/data-contract.md#identifiers-and-slugs).
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);

/** One UTC calendar day. Every day the service computes is a UTC day, so a day is always this long. */
export const DAY_MS = 86_400_000;

/** How much of a caller's string an error quotes (a name it did not recognise): enough to recognise it, never a whole body. */
export const ECHOED_CHARS = 80;

/** A caller's string as an error quotes it: cut at ECHOED_CHARS, with an ellipsis where cut. */
export const echoed = (s: string): string => (s.length > ECHOED_CHARS ? `${s.slice(0, ECHOED_CHARS)}…` : s);
