import * as z from 'zod';
import { DAY_MS } from '../formats.js';

export const WINDOW_NAMES = ['last-run', '7d', '14d', '30d', '90d', 'all'] as const;
export type WindowName = (typeof WINDOW_NAMES)[number];

/**
 * Bounds of a custom window (docs/contract.md#common-parameters leaves them to us). Every date the service computes from a legal
 * one (the comparison period reaches MAX_WINDOW_DAYS further back, the day after `to`) stays an ordinary
 * four-digit ISO date for JavaScript and PostgreSQL alike, and a daily series of the widest window stays
 * a few hundred kilobytes. The store holds no measurement outside them (CHECK constraints, migration 005).
 */
export const FIRST_DAY = '2000-01-01';
export const LAST_DAY = '2099-12-31';
/** Longest custom window, from and to included: one leap year. */
export const MAX_WINDOW_DAYS = 366;

/** Days from `from` to `to`, both included. */
export function spanDays(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

/**
 * Every UTC day from `from` to `to`, both included, as YYYY-MM-DD: one Date moved a day at a time, each day
 * written from its UTC fields (years here are 2000 to 2099, four digits), not a Date made and formatted per
 * day, which a series of years would pay for every day.
 */
export function* daysFrom(from: string, to: string): Generator<string> {
  const last = Date.parse(`${to}T00:00:00Z`);
  const d = new Date(`${from}T00:00:00Z`);
  const two = (n: number) => (n < 10 ? `0${n}` : String(n));
  for (; d.getTime() <= last; d.setUTCDate(d.getUTCDate() + 1))
    yield `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`;
}

/** A calendar day, YYYY-MM-DD, that exists (2026-02-30 does not), between FIRST_DAY and LAST_DAY. */
export const isoDay = z.iso
  .date('Expected a calendar day as YYYY-MM-DD.')
  .refine((s) => s >= FIRST_DAY && s <= LAST_DAY, `Days go from ${FIRST_DAY} to ${LAST_DAY}.`);

/**
 * The window parameters of a read: accepted names, and the optional custom from/to days. `meaning`, when
 * the reads sharing these parameters mean the same by each window, says it once, on the parameter.
 */
export function windowParams<const N extends readonly [WindowName, ...WindowName[]]>(
  accepted: N,
  defaultName: N[number],
  meaning?: string,
) {
  return {
    window: z
      .enum(accepted)
      .optional()
      .describe(meaning ?? `Measurement window, default ${defaultName}. Excludes from/to.`),
    from: isoDay.optional().describe(`First UTC day, inclusive, ${FIRST_DAY}..${LAST_DAY}; with to, at most ${MAX_WINDOW_DAYS} days.`),
    to: isoDay.optional().describe(`Last UTC day, inclusive, ${FIRST_DAY}..${LAST_DAY}; with from, at most ${MAX_WINDOW_DAYS} days.`),
  };
}

/** docs/contract.md#common-parameters rule 3, from ≤ to and the longest span, as object-level checks that name the offending parameter. */
export function checkWindow(
  v: { window?: string | undefined; from?: string | undefined; to?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (v.window !== undefined && (v.from !== undefined || v.to !== undefined)) {
    ctx.addIssue({ code: 'custom', path: ['window'], message: 'window cannot be combined with from/to.' });
  } else if (v.from !== undefined && v.to === undefined) {
    ctx.addIssue({ code: 'custom', path: ['to'], message: 'from requires to.' });
  } else if (v.to !== undefined && v.from === undefined) {
    ctx.addIssue({ code: 'custom', path: ['from'], message: 'to requires from.' });
  } else if (v.from !== undefined && v.to !== undefined && v.from > v.to) {
    ctx.addIssue({ code: 'custom', path: ['from'], message: 'from must not be after to.' });
  } else if (v.from !== undefined && v.to !== undefined && spanDays(v.from, v.to) > MAX_WINDOW_DAYS) {
    ctx.addIssue({ code: 'custom', path: ['to'], message: `A custom window spans at most ${MAX_WINDOW_DAYS} days, from and to included.` });
  }
}

export type WindowSpec = { kind: 'named'; name: WindowName } | { kind: 'custom'; from: string; to: string };

/** The window as asked: the explicit one, the custom days, or the read's default. */
export function windowSpec(
  v: { window?: WindowName | undefined; from?: string | undefined; to?: string | undefined },
  defaultName: WindowName,
): WindowSpec {
  if (v.from !== undefined && v.to !== undefined) return { kind: 'custom', from: v.from, to: v.to };
  return { kind: 'named', name: v.window ?? defaultName };
}

/** A stable text for binding cursors to the window they were produced under. */
export function windowKey(spec: WindowSpec): string {
  return spec.kind === 'named' ? spec.name : `${spec.from}..${spec.to}`;
}
