/**
 * The arithmetic of the figures, kept apart from SQL and HTTP so it can be tested by hand.
 * Every published number is rounded to 6 decimal places (ROUND_DIGITS); deltas are computed from the
 * unrounded values, then rounded.
 */

export const ROUND_DIGITS = 6;
/** Two-sided 95% normal quantile. */
export const Z95 = 1.959963984540054;

export function round(x: number): number {
  const f = 10 ** ROUND_DIGITS;
  const r = Math.round(x * f) / f;
  return Object.is(r, -0) ? 0 : r;
}

export interface Interval {
  low: number;
  high: number;
}

/** Wilson score interval at 95% for k successes out of n; null when n = 0 (nothing to estimate). */
export function wilson(k: number, n: number): Interval | null {
  if (n <= 0) return null;
  const p = k / n;
  const z2 = Z95 * Z95;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (Z95 / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: round(Math.max(0, centre - half)), high: round(Math.min(1, centre + half)) };
}

export interface RateValue {
  value: number | null;
  numerator: number;
  denominator: number;
  ci95: Interval | null;
}

export function rate(k: number, n: number): RateValue {
  return { value: n > 0 ? round(k / n) : null, numerator: k, denominator: n, ci95: wilson(k, n) };
}

/** Two intervals that do not overlap: the change is outside the noise. */
export function disjoint(a: Interval | null, b: Interval | null): boolean | null {
  if (!a || !b) return null;
  return a.low > b.high || a.high < b.low;
}

export interface RateFigure extends RateValue {
  previous: RateValue | null;
  delta: number | null;
  significant: boolean | null;
}

/** A rate and, when there is a comparison period, its previous value, delta and significance. */
export function rateFigure(k: number, n: number, prev: { k: number; n: number } | null, measured = true): RateFigure {
  const cur = measured ? rate(k, n) : { value: null, numerator: k, denominator: n, ci95: null };
  const previous = prev ? rate(prev.k, prev.n) : null;
  const delta =
    previous && cur.value !== null && previous.value !== null && n > 0 && prev && prev.n > 0 ? round(k / n - prev.k / prev.n) : null;
  return { ...cur, previous, delta, significant: previous ? disjoint(cur.ci95, previous.ci95) : null };
}

export interface MeanValue {
  value: number | null;
  count: number;
}

export interface MeanFigure extends MeanValue {
  previous: MeanValue | null;
  delta: number | null;
}

export function mean(sum: number, n: number): MeanValue {
  return { value: n > 0 ? round(sum / n) : null, count: n };
}

/** An average with its previous value and delta; no interval (see the schema descriptions). */
export function meanFigure(sum: number, n: number, prev: { sum: number; n: number } | null): MeanFigure {
  const cur = mean(sum, n);
  const previous = prev ? mean(prev.sum, prev.n) : null;
  const delta = previous && n > 0 && prev && prev.n > 0 ? round(sum / n - prev.sum / prev.n) : null;
  return { ...cur, previous, delta };
}
