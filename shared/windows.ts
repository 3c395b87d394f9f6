import * as z from 'zod';

export const WINDOW_NAMES = ['last-run', '7d', '14d', '30d', '90d', 'all'] as const;
export type WindowName = (typeof WINDOW_NAMES)[number];

/** A calendar day, YYYY-MM-DD, that exists (2026-02-30 does not). */
export const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Expected a day as YYYY-MM-DD.')
  .refine((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
  }, 'This day does not exist in the calendar.');

/** The window parameters of a read: accepted names, and the optional custom from/to days. */
export function windowParams<const N extends readonly WindowName[]>(accepted: N, defaultName: N[number]) {
  return {
    window: z
      .enum(accepted as unknown as [N[number], ...N[number][]])
      .optional()
      .describe(`Measurement window: ${accepted.join(', ')}. Default ${defaultName}. Excludes from/to.`),
    from: isoDay.optional().describe('First day of a custom window (UTC, inclusive). Requires to; excludes window.'),
    to: isoDay.optional().describe('Last day of a custom window (UTC, inclusive). Requires from; excludes window.'),
  };
}

/** SPEC §4.1 rule 3, and from ≤ to, as object-level checks that name the offending parameter. */
export function checkWindow(v: { window?: string | undefined; from?: string | undefined; to?: string | undefined }, ctx: z.RefinementCtx): void {
  if (v.window !== undefined && (v.from !== undefined || v.to !== undefined)) {
    ctx.addIssue({ code: 'custom', path: ['window'], message: 'window cannot be combined with from/to.' });
  } else if (v.from !== undefined && v.to === undefined) {
    ctx.addIssue({ code: 'custom', path: ['to'], message: 'from requires to.' });
  } else if (v.to !== undefined && v.from === undefined) {
    ctx.addIssue({ code: 'custom', path: ['from'], message: 'to requires from.' });
  } else if (v.from !== undefined && v.to !== undefined && v.from > v.to) {
    ctx.addIssue({ code: 'custom', path: ['from'], message: 'from must not be after to.' });
  }
}

export type WindowSpec = { kind: 'named'; name: WindowName } | { kind: 'custom'; from: string; to: string };

/** The window as asked: the explicit one, the custom days, or the read's default. */
export function windowSpec(v: { window?: WindowName | undefined; from?: string | undefined; to?: string | undefined }, defaultName: WindowName): WindowSpec {
  if (v.from !== undefined && v.to !== undefined) return { kind: 'custom', from: v.from, to: v.to };
  return { kind: 'named', name: v.window ?? defaultName };
}

/** A stable text for binding cursors to the window they were produced under. */
export function windowKey(spec: WindowSpec): string {
  return spec.kind === 'named' ? spec.name : `${spec.from}..${spec.to}`;
}
