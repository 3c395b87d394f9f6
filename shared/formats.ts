/** Formats recognised across the service: one definition each. */

/** A UUID in its text form, any version, either case (the store's ids; an analysis named by id). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);

/** One UTC calendar day. Every day the service computes is a UTC day, so a day is always this long. */
export const DAY_MS = 86_400_000;
