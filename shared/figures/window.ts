import type { WindowName, WindowSpec } from '../windows.js';

/**
 * Window anchoring (DESIGN §3): figure reads end their window on the UTC day of the last finished
 * collection (the latest run whose collected_at is set, by started_at). A run belongs to the UTC day it
 * started. `Nd` is the N days ending on that day; from/to are inclusive UTC days; all is everything.
 * Comparison: last-run → the previous finished collection; Nd and from/to → the period of equal length
 * just before; all → none.
 */

export interface RunRef {
  id: string;
  state: 'collecting' | 'extracting' | 'finished' | 'failed';
  started_at: string;
  collected_at: string | null;
  finished_at: string | null;
  day: string;
}

export type Period =
  | { kind: 'run'; run: RunRef; from: string; to: string }
  | { kind: 'days'; from: string; to: string }
  | { kind: 'all'; from: string; to: string };

export interface Resolved {
  name: WindowName | 'custom';
  /** Null when the analysis was never collected and the window is named (nothing to anchor on). */
  current: Period | null;
  previous: Period | null;
  anchor: RunRef | null;
}

const DAY_MS = 86_400_000;

export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

export function resolveWindow(spec: WindowSpec, runs: { last: RunRef | null; previous: RunRef | null; firstDay: string | null }): Resolved {
  const { last, previous, firstDay } = runs;
  if (spec.kind === 'custom') {
    const len = daysBetween(spec.from, spec.to);
    return {
      name: 'custom',
      current: { kind: 'days', from: spec.from, to: spec.to },
      previous: { kind: 'days', from: addDays(spec.from, -len), to: addDays(spec.from, -1) },
      anchor: last,
    };
  }
  if (!last) return { name: spec.name, current: null, previous: null, anchor: null };
  const anchorDay = last.day;
  switch (spec.name) {
    case 'last-run':
      return {
        name: spec.name,
        current: { kind: 'run', run: last, from: last.day, to: last.day },
        previous: previous ? { kind: 'run', run: previous, from: previous.day, to: previous.day } : null,
        anchor: last,
      };
    case 'all':
      return { name: spec.name, current: { kind: 'all', from: firstDay ?? anchorDay, to: anchorDay }, previous: null, anchor: last };
    default: {
      const n = Number(spec.name.slice(0, -1));
      const from = addDays(anchorDay, -(n - 1));
      return {
        name: spec.name,
        current: { kind: 'days', from, to: anchorDay },
        previous: { kind: 'days', from: addDays(from, -n), to: addDays(from, -1) },
        anchor: last,
      };
    }
  }
}

function monthStart(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

function nextMonthStart(day: string): string {
  const d = new Date(`${monthStart(day)}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return d.toISOString().slice(0, 10);
}

/**
 * Splits [from, to] into whole calendar months (read from the month aggregates) and the edge days
 * around them (read from the per-run aggregates).
 */
export function splitMonths(from: string, to: string): { months: [string, string] | null; edges: [string, string][] } {
  const firstFull = from === monthStart(from) ? from : nextMonthStart(from);
  const lastFullEnd = addDays(to, 1) === nextMonthStart(to) ? to : addDays(monthStart(to), -1);
  if (firstFull > lastFullEnd) return { months: null, edges: [[from, to]] };
  const edges: [string, string][] = [];
  if (from < firstFull) edges.push([from, addDays(firstFull, -1)]);
  if (lastFullEnd < to) edges.push([addDays(lastFullEnd, 1), to]);
  return { months: [firstFull, monthStart(lastFullEnd)], edges };
}

/** Positional SQL parameters, collected as the text is built. */
export class Params {
  readonly values: unknown[] = [];
  constructor(...initial: unknown[]) {
    this.values.push(...initial);
  }
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

export interface SegmentTables {
  fine: string;
  month: string;
  /** Columns selected from both tables (same names in each). */
  cols: string;
  /** Columns from the month table when they differ. */
  monthCols?: string;
  /** Extra condition on both tables. */
  where?: string;
}

/**
 * UNION ALL of the rows that make up each period, tagged with the period index (0 current, 1 previous).
 * $1 must be the analysis id.
 */
export function segments(p: Params, periods: readonly (Period | null)[], t: SegmentTables): string {
  const extra = t.where ? ` AND ${t.where}` : '';
  const monthCols = t.monthCols ?? t.cols;
  const parts: string[] = [];
  periods.forEach((period, i) => {
    if (!period) return;
    if (period.kind === 'run') {
      parts.push(`SELECT ${i} AS period, ${t.cols} FROM ${t.fine} WHERE analysis_id = $1 AND run_id = ${p.add(period.run.id)}::uuid${extra}`);
    } else if (period.kind === 'all') {
      parts.push(`SELECT ${i} AS period, ${monthCols} FROM ${t.month} WHERE analysis_id = $1${extra}`);
    } else {
      const { months, edges } = splitMonths(period.from, period.to);
      if (months) {
        parts.push(
          `SELECT ${i} AS period, ${monthCols} FROM ${t.month} WHERE analysis_id = $1 AND month BETWEEN ${p.add(months[0])}::date AND ${p.add(months[1])}::date${extra}`,
        );
      }
      for (const [a, b] of edges) {
        parts.push(`SELECT ${i} AS period, ${t.cols} FROM ${t.fine} WHERE analysis_id = $1 AND day BETWEEN ${p.add(a)}::date AND ${p.add(b)}::date${extra}`);
      }
    }
  });
  if (parts.length === 0) return `SELECT NULL::int AS period, ${t.cols} FROM ${t.fine} WHERE analysis_id = $1${extra} AND false`;
  return parts.join('\nUNION ALL\n');
}

/** SQL condition selecting the runs of a period (runs aliased r); timestamps bound as UTC instants. */
export function runFilter(p: Params, period: Period): string {
  if (period.kind === 'run') return `r.id = ${p.add(period.run.id)}::uuid`;
  if (period.kind === 'all') return 'true';
  return `r.started_at >= ${p.add(`${period.from}T00:00:00Z`)}::timestamptz AND r.started_at < ${p.add(`${addDays(period.to, 1)}T00:00:00Z`)}::timestamptz`;
}
