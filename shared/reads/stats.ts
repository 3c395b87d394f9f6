/**
 * The arithmetic of the figures (rates, means, their intervals and changes), kept apart from SQL and HTTP so
 * it can be tested by hand. It sits beside the families, not inside one: the figures and the run read
 * (catalog) both publish rates with their changes, and a family's bundle holds only its own reads.
 * Every published number is rounded to 6 decimal places (ROUND_DIGITS); deltas and intervals are computed
 * from the unrounded values, then rounded.
 */

export const ROUND_DIGITS = 6;
/** Two-sided 95% normal quantile. */
export const Z95 = 1.959963984540054;

const ROUND_SCALE = 10 ** ROUND_DIGITS;

export function round(x: number): number {
  const r = Math.round(x * ROUND_SCALE) / ROUND_SCALE;
  // One zero, never −0 (−0 === 0, so both map to +0): a value compared with Object.is must not depend on the sign.
  return r === 0 ? 0 : r;
}

export interface Interval {
  low: number;
  high: number;
}

const rounded = (low: number, high: number): Interval => ({ low: round(low), high: round(high) });

const Z95_SQ = Z95 * Z95;

/** A rate's terms of its Wilson interval that do not depend on z. */
interface WilsonSide {
  p: number;
  n: number;
  /** p(1 − p)/n */
  spread: number;
}

const sideOf = (k: number, n: number): WilsonSide => {
  const p = k / n;
  return { p, n, spread: (p * (1 - p)) / n };
};

/**
 * One bound of the Wilson score interval of a side at the normal quantile z (z2 = z²), unclamped: sign −1
 * the low, +1 the high. The one place the formula is written: the interval and the p-value's search (which
 * evaluates it at many z) both use it, so they agree to the last bit.
 */
function wilsonBound(s: WilsonSide, z: number, z2: number, sign: 1 | -1): number {
  const denom = 1 + z2 / s.n;
  return (s.p + z2 / (2 * s.n)) / denom + sign * ((z / denom) * Math.sqrt(s.spread + z2 / (4 * s.n * s.n)));
}

/** Wilson score interval at 95% for k of n, unrounded; null when n = 0. */
function wilsonRaw(k: number, n: number): Interval | null {
  if (n <= 0) return null;
  const s = sideOf(k, n);
  return { low: Math.max(0, wilsonBound(s, Z95, Z95_SQ, -1)), high: Math.min(1, wilsonBound(s, Z95, Z95_SQ, 1)) };
}

/** Wilson score interval at 95% for k successes out of n; null when n = 0 (nothing to estimate). */
export function wilson(k: number, n: number): Interval | null {
  const w = wilsonRaw(k, n);
  return w && rounded(w.low, w.high);
}

/**
 * 95% interval of k1/n1 − k2/n2 by Newcombe's hybrid score method (Newcombe 1998, method 10), built from
 * the two Wilson intervals; null when either denominator is 0.
 */
export function newcombe(k1: number, n1: number, k2: number, n2: number): Interval | null {
  const w1 = wilsonRaw(k1, n1);
  const w2 = wilsonRaw(k2, n2);
  return w1 && w2 ? newcombeFrom(k1 / n1, w1, k2 / n2, w2) : null;
}

/** Newcombe's interval from the two proportions and their unrounded Wilson intervals (a figure has them already). */
function newcombeFrom(p1: number, w1: Interval, p2: number, w2: Interval): Interval {
  const d = p1 - p2;
  const low = d - Math.sqrt((p1 - w1.low) ** 2 + (w2.high - p2) ** 2);
  const high = d + Math.sqrt((w1.high - p1) ** 2 + (p2 - w2.low) ** 2);
  return rounded(Math.max(-1, low), Math.min(1, high));
}

/** 2·(1 − Φ(|z|)): the two-sided normal tail (erfc after Numerical Recipes' Chebyshev fit, relative error below 1.2e-7). */
export function normalTwoSided(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const poly =
    -x * x -
    1.26551223 +
    t *
      (1.00002368 +
        t *
          (0.37409196 +
            t *
              (0.09678418 +
                t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  return Math.min(1, t * Math.exp(poly));
}

/**
 * The p-value of a change between two rates that the Newcombe interval publishes: the level at which that
 * interval (built from Wilson intervals at the normal quantile z) would just reach 0. Its bound nearer 0
 * moves monotonically with z, so z is found inside a bracket; p = 2·(1 − Φ(z)). So p < 0.05 exactly when the
 * 95% interval excludes 0. Null when either denominator is 0; 1 when the rates are equal.
 */
export function newcombeP(k1: number, n1: number, k2: number, n2: number): number | null {
  if (n1 <= 0 || n2 <= 0) return null;
  const d = k1 / n1 - k2 / n2;
  if (d === 0) return 1;
  // Each side's terms of the Wilson interval that do not depend on z, computed once: the search evaluates
  // the gap a dozen times per test, and a long series runs hundreds of tests per call.
  const s1 = sideOf(k1, n1);
  const s2 = sideOf(k2, n2);
  // The bound nearer 0: the low of the first rate against the high of the second when d > 0, and the
  // other way round when d < 0 (the gap of -d with the sides swapped).
  const near = d > 0 ? s1 : s2;
  const far = d > 0 ? s2 : s1;
  const ad = Math.abs(d);
  // Regula falsi, Illinois variant: the root stays bracketed in [a, b] (gap(a) > 0 ≥ gap(b)) and the
  // bracket shrinks superlinearly, in a handful of steps where bisection takes thirty.
  let a = 0;
  let fa = newcombeGap(ad, near, far, a);
  let b = P_Z_MAX;
  let fb = newcombeGap(ad, near, far, b);
  if (fb > 0) return 0;
  let side = 0;
  let c = b;
  for (let i = 0; i < 100; i++) {
    const next = (a * fb - b * fa) / (fb - fa);
    const fc = newcombeGap(ad, near, far, next);
    const done = Math.abs(next - c) <= 1e-10 || fc === 0;
    c = next;
    if (done) break;
    if (fc > 0) {
      a = c;
      fa = fc;
      if (side === 1) fb /= 2;
      side = 1;
    } else {
      b = c;
      fb = fc;
      if (side === -1) fa /= 2;
      side = -1;
    }
  }
  return normalTwoSided(c);
}

/**
 * The distance from 0 of the Newcombe bound nearer it at quantile z, for a difference d > 0 between the rate
 * `near` (its Wilson low counts) and `far` (its Wilson high counts): positive while the interval excludes 0.
 */
function newcombeGap(d: number, near: WilsonSide, far: WilsonSide, z: number): number {
  const z2 = z * z;
  const nearLow = Math.max(0, wilsonBound(near, z, z2, -1));
  const farHigh = Math.min(1, wilsonBound(far, z, z2, 1));
  return d - Math.sqrt((near.p - nearLow) ** 2 + (farHigh - far.p) ** 2);
}

/** A normal quantile past which a p-value is 0 to every published digit (2·(1 − Φ(8)) ≈ 1.2e-15). */
const P_Z_MAX = 8;

/** A change is significant when the 95% interval of the difference (as published) excludes 0. */
export function excludesZero(iv: Interval | null): boolean | null {
  return iv ? iv.low > 0 || iv.high < 0 : null;
}

// --- Student's t -------------------------------------------------------------------------------------

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9: about 15 significant digits). */
function lnGamma(x: number): number {
  const c = [
    0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406, 12.507343278686905,
    -0.13857109526572012, 9.984369578019572e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const y = x - 1;
  let a = c[0] as number;
  const t = y + 7.5;
  for (let i = 1; i < 9; i++) a += (c[i] as number) / (y + i);
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction of the incomplete beta function (modified Lentz). */
function betaFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return h;
}

/** ln B(a, b). */
const lnBeta = (a: number, b: number): number => lnGamma(a) + lnGamma(b) - lnGamma(a + b);

/** Regularized incomplete beta I_x(a, b), 0 ≤ x ≤ 1; `lnB` = ln B(a, b) when the caller has it. */
export function incompleteBeta(x: number, a: number, b: number, lnB = lnBeta(a, b)): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(a * Math.log(x) + b * Math.log(1 - x) - lnB);
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** P(T ≤ t) for Student's t with df > 0 degrees of freedom. */
export function tCdf(t: number, df: number, lnB = lnBeta(df / 2, 0.5)): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5, lnB);
  return t >= 0 ? 1 - tail : tail;
}

/** Density of Student's t; lnB = ln B(df/2, 1/2). */
function tPdf(t: number, df: number, lnB: number): number {
  return Math.exp(-lnB - 0.5 * Math.log(df) - ((df + 1) / 2) * Math.log1p((t * t) / df));
}

/** Standard normal quantile, 0.5 < p < 1 (Acklam's rational approximation, relative error below 1.2e-9). */
function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = d as [number, number, number, number];
  if (p > 0.97575) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return -(((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  return ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) / (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1);
}

/**
 * Hill's approximation of the t quantile (G. W. Hill, Algorithm 396, Comm. ACM 13, 1970), good to about
 * six digits for df above ~2.3: the start of the Halley step (or of the Newton steps, when it is poorer).
 */
function hill(p: number, n: number, z: number): number {
  const P = 2 * (1 - p);
  const a = 1 / (n - 0.5);
  const b = 48 / (a * a);
  let c = (((20700 * a) / b - 98) * a - 16) * a + 96.36;
  const d = ((94.5 / (b + c) - 3) / b + 1) * Math.sqrt((a * Math.PI) / 2) * n;
  let y = (d * P) ** (2 / n);
  if (y > 0.05 + a) {
    const x = -z;
    y = x * x;
    if (n < 5) c += 0.3 * (n - 4.5) * (x + 0.6);
    c = (((0.05 * d * x - 5) * x - 7) * x - 2) * x + b + c;
    y = (((((0.4 * y + 6.3) * y + 36) * y + 94.5) / c - y - 3) / b + 1) * x;
    y = Math.expm1(a * y * y);
  } else {
    y = ((1 / (((n + 6) / (n * y) - 0.089 * d - 0.822) * (n + 2) * 3) + 0.5 / (n + 4)) * y - 1) * ((n + 1) / (n + 2)) + 1 / y;
  }
  return Math.sqrt(n * y);
}

const T_CACHE = new Map<number, number>();
const T_CACHE_MAX = 4096;

/**
 * Largest first step (relative to t) after which the Halley point is kept without checking it. Halley's
 * error is cubic in the start's: a start this close ends many orders of magnitude below the published
 * digits. Hill's start is about that close for df above ~2.3; below it, or at an odd p, the step is larger
 * and the bracketed Newton iteration takes over.
 */
const HALLEY_ACCEPT = 1e-4;

/**
 * The p quantile (0.5 < p < 1) of Student's t with df > 0 degrees of freedom, real df allowed (Welch).
 * Exact closed forms for df 1 and 2; otherwise one Halley step on the t CDF (incomplete beta) from Hill's
 * estimate, so the common case evaluates the CDF once. A poor start falls back to Newton's method, kept
 * inside a bracket that always holds the root (a step leaving it bisects instead).
 */
export function tQuantile(p: number, df: number): number {
  if (!(p > 0.5 && p < 1) || !(df > 0)) throw new RangeError(`tQuantile(${p}, ${df})`);
  if (df === 1) return Math.tan(Math.PI * (p - 0.5));
  if (df === 2) return (2 * p - 1) / Math.sqrt(2 * p * (1 - p));
  const key = p === 0.975 && Number.isInteger(df) ? df : null;
  if (key !== null) {
    const hit = T_CACHE.get(key);
    if (hit !== undefined) return hit;
  }
  const z = normalQuantile(p);
  const lnB = lnBeta(df / 2, 0.5);
  const t0 = Math.max(z, hill(p, df, z));
  const f0 = tCdf(t0, df, lnB) - p;
  // Halley: the density's derivative is analytic, f'(t) = −f(t)·(df + 1)·t / (df + t²), so the second-order
  // correction costs no further CDF evaluation.
  const u = f0 / tPdf(t0, df, lnB);
  const step = u / (1 + (u * (df + 1) * t0) / (2 * (df + t0 * t0)));
  let t = t0 - step;
  // NaN (a degenerate start) fails the test too.
  if (!(Math.abs(step) <= HALLEY_ACCEPT * t0)) {
    // The root lies above z (t is wider than the normal); the sign at t0 already bounds it on one side.
    t = newton(t, f0 < 0 ? t0 : z, f0 < 0 ? Number.POSITIVE_INFINITY : t0, p, df, lnB);
  }
  if (key !== null && T_CACHE.size < T_CACHE_MAX) T_CACHE.set(key, t);
  return t;
}

/**
 * Newton's method on the t CDF from t, inside the bracket (lo, hi) that holds the root; hi stays open
 * (infinite) until a point above the root is seen.
 */
function newton(t: number, lo: number, hi: number, p: number, df: number, lnB: number): number {
  if (!(t > lo && t < hi)) t = Number.isFinite(hi) ? (lo + hi) / 2 : 2 * lo;
  for (let i = 0; i < 200; i++) {
    const f = tCdf(t, df, lnB) - p;
    // Exactly on the root: a Newton step of 0 would look like leaving the bracket and bisect away from it.
    if (f === 0) break;
    if (f < 0) lo = t;
    else hi = t;
    let next = t - f / tPdf(t, df, lnB);
    if (!(next > lo && next < hi)) next = Number.isFinite(hi) ? (lo + hi) / 2 : 2 * lo;
    // Newton converges quadratically: after a step under 1e-9 t, the error is far below any published digit.
    const done = Math.abs(next - t) <= 1e-9 * t;
    t = next;
    if (done) break;
  }
  return t;
}

// --- Rates -------------------------------------------------------------------------------------------

export interface RateValue {
  value: number | null;
  numerator: number;
  denominator: number;
  ci95: Interval | null;
}

export function rate(k: number, n: number): RateValue {
  return rateWith(k, n, wilsonRaw(k, n));
}

/** A rate with its unrounded Wilson interval already computed (null: unmeasured, or no denominator). */
function rateWith(k: number, n: number, w: Interval | null, measured = true): RateValue {
  return { value: measured && n > 0 ? round(k / n) : null, numerator: k, denominator: n, ci95: w && rounded(w.low, w.high) };
}

/** A rate's change against a previous one: the test a rate figure carries. */
export interface RateChange {
  delta: number | null;
  delta_ci95: Interval | null;
  significant: boolean | null;
  /** Of the test delta_ci95 publishes (newcombeP), rounded to 6 decimals; null when delta_ci95 is null. */
  p_value: number | null;
  /** Benjamini–Hochberg across the tests of the reply (applyFdr); null until then, and when p_value is null. */
  significant_fdr: boolean | null;
}

export interface RateFigure extends RateValue, RateChange {
  previous: RateValue | null;
}

/** The change from prev to k of n, from both sides' unrounded Wilson intervals (null where unmeasured or no denominator). */
function changeFrom(k: number, n: number, w: Interval | null, prev: { k: number; n: number }, pw: Interval | null): RateChange {
  // A change needs both values: this period measured with a denominator, and a previous one with a denominator.
  const both = w !== null && pw !== null;
  const deltaCi = both ? newcombeFrom(k / n, w, prev.k / prev.n, pw) : null;
  return {
    delta: both ? round(k / n - prev.k / prev.n) : null,
    delta_ci95: deltaCi,
    significant: excludesZero(deltaCi),
    p_value: deltaCi ? pRounded(newcombeP(k, n, prev.k, prev.n)) : null,
    significant_fdr: null,
  };
}

/** Without a comparison period: nothing tested. Read only, its fields copied into each figure. */
const NO_CHANGE: Readonly<RateChange> = { delta: null, delta_ci95: null, significant: null, p_value: null, significant_fdr: null };

/** The change from prev to k of n alone, for a reply that shows the two values elsewhere (a series day). */
export function rateChange(k: number, n: number, prev: { k: number; n: number }): RateChange {
  return changeFrom(k, n, wilsonRaw(k, n), prev, wilsonRaw(prev.k, prev.n));
}

/**
 * A rate and, when there is a comparison period, its previous value, delta, delta interval and significance.
 * Each side's Wilson interval is computed once, for its ci95 and for the Newcombe interval of the change.
 */
export function rateFigure(k: number, n: number, prev: { k: number; n: number } | null, measured = true): RateFigure {
  const w = measured ? wilsonRaw(k, n) : null;
  const pw = prev ? wilsonRaw(prev.k, prev.n) : null;
  const cur = rateWith(k, n, w, measured);
  const change = prev ? changeFrom(k, n, w, prev, pw) : NO_CHANGE;
  return {
    value: cur.value,
    numerator: k,
    denominator: n,
    ci95: cur.ci95,
    previous: prev ? rateWith(prev.k, prev.n, pw) : null,
    delta: change.delta,
    delta_ci95: change.delta_ci95,
    significant: change.significant,
    p_value: change.p_value,
    significant_fdr: null,
  };
}

const pRounded = (p: number | null): number | null => (p === null ? null : round(p));

// --- Means -------------------------------------------------------------------------------------------

/** What a mean is computed from: the sum, the sum of squares and the number of values. */
export interface Moments {
  sum: number;
  sq: number;
  n: number;
}

/** Sample variance from the moments (n ≥ 2), never below 0 (rounding of sums of squares). */
function variance(m: Moments): number {
  return Math.max(0, (m.sq - (m.sum * m.sum) / m.n) / (m.n - 1));
}

/** Student t 95% interval of the mean (n − 1 df, sample sd); null when n < 2. */
export function meanInterval(m: Moments): Interval | null {
  if (m.n < 2) return null;
  const centre = m.sum / m.n;
  const half = tQuantile(0.975, m.n - 1) * Math.sqrt(variance(m) / m.n);
  return rounded(centre - half, centre + half);
}

/**
 * Welch's 95% interval of mean(a) − mean(b), Welch–Satterthwaite degrees of freedom; null when either
 * count is below 2. Both variances 0: the difference is known exactly, the interval is that one point.
 */
export function welch(a: Moments, b: Moments): Interval | null {
  if (a.n < 2 || b.n < 2) return null;
  const d = a.sum / a.n - b.sum / b.n;
  const va = variance(a) / a.n;
  const vb = variance(b) / b.n;
  const se2 = va + vb;
  if (se2 <= 0) return rounded(d, d);
  const df = (se2 * se2) / ((va * va) / (a.n - 1) + (vb * vb) / (b.n - 1));
  const half = tQuantile(0.975, df) * Math.sqrt(se2);
  return rounded(d - half, d + half);
}

export interface MeanValue {
  value: number | null;
  count: number;
  ci95: Interval | null;
}

export interface MeanFigure extends MeanValue {
  previous: MeanValue | null;
  delta: number | null;
  delta_ci95: Interval | null;
  significant: boolean | null;
  /** Of Welch's t test (welchP), rounded to 6 decimals; null when delta_ci95 is null. */
  p_value: number | null;
  /** Benjamini–Hochberg across the tests of the reply (applyFdr); null until then, and when p_value is null. */
  significant_fdr: boolean | null;
}

/**
 * The two-sided p-value of Welch's t test of mean(a) − mean(b), the test whose interval welch() publishes
 * (same standard error, same Welch–Satterthwaite degrees of freedom): below 0.05 exactly when that
 * interval excludes 0. Null when either count is below 2; with both variances 0, 1 for equal means and 0
 * otherwise (the one-point interval).
 */
export function welchP(a: Moments, b: Moments): number | null {
  if (a.n < 2 || b.n < 2) return null;
  const d = a.sum / a.n - b.sum / b.n;
  const va = variance(a) / a.n;
  const vb = variance(b) / b.n;
  const se2 = va + vb;
  if (se2 <= 0) return d === 0 ? 1 : 0;
  const df = (se2 * se2) / ((va * va) / (a.n - 1) + (vb * vb) / (b.n - 1));
  const t = d / Math.sqrt(se2);
  // 2·P(T > |t|), read from the incomplete beta directly: no cancellation in 1 − CDF for large |t|.
  return Math.min(1, incompleteBeta(df / (df + t * t), df / 2, 0.5));
}

export function mean(m: Moments): MeanValue {
  return { value: m.n > 0 ? round(m.sum / m.n) : null, count: m.n, ci95: meanInterval(m) };
}

/** An average with its interval and, with a comparison period, its previous value, delta, Welch interval and significance. */
export function meanFigure(cur: Moments, prev: Moments | null): MeanFigure {
  const deltaCi = prev ? welch(cur, prev) : null;
  return {
    value: cur.n > 0 ? round(cur.sum / cur.n) : null,
    count: cur.n,
    ci95: meanInterval(cur),
    previous: prev ? mean(prev) : null,
    delta: prev && cur.n > 0 && prev.n > 0 ? round(cur.sum / cur.n - prev.sum / prev.n) : null,
    delta_ci95: deltaCi,
    significant: excludesZero(deltaCi),
    p_value: deltaCi && prev ? pRounded(welchP(cur, prev)) : null,
    significant_fdr: null,
  };
}

// --- Many tests in one reply ---------------------------------------------------------------------------

/** The false discovery rate every reply is corrected at. */
export const FDR_Q = 0.05;

/**
 * Benjamini–Hochberg at q: which of the p-values (null: no test) are discoveries. The m tests are the
 * non-null ones; sorted ascending, the largest rank k with p(k) ≤ k·q/m, and every p-value at or below
 * p(k), are discoveries.
 */
export function benjaminiHochberg(ps: readonly (number | null)[], q = FDR_Q): Array<boolean | null> {
  // Only the sorted values matter: ranks up to k are exactly the values at or below p(k), ties included
  // (a tie of p(k) past rank k would satisfy the test at its own, larger rank). A typed array sorts
  // numerically without a comparator, which a long series' thousands of tests notice.
  const sorted = Float64Array.from(ps.filter((p): p is number => p !== null)).sort();
  const m = sorted.length;
  let threshold = Number.NEGATIVE_INFINITY;
  for (let r = m; r >= 1; r--) {
    const p = sorted[r - 1] as number;
    if (p <= (r * q) / m) {
      threshold = p;
      break;
    }
  }
  return ps.map((p) => (p === null ? null : p <= threshold));
}

export interface MultipleComparisons {
  method: 'benjamini-hochberg';
  q: number;
  tests: number;
}

interface Tested {
  p_value: number | null;
  significant: boolean | null;
  significant_fdr: boolean | null;
}

const isTested = (v: object): v is Tested => 'p_value' in v && 'significant_fdr' in v && 'significant' in v;

/**
 * Corrects every test a reply holds at once: finds each figure with a p_value (anywhere in `body`, in the
 * order of its fields), applies Benjamini–Hochberg at FDR_Q across the non-null ones, and sets each
 * figure's significant_fdr (true only where significant is true too, so the corrected flag never claims
 * more than the uncorrected one). Returns what the reply's context says of it.
 */
export function applyFdr(body: unknown): MultipleComparisons {
  const found: Tested[] = [];
  // A reply of a long series holds thousands of objects: each is entered once, without copying its
  // values (for...in over plain objects, in the order of their fields), and primitives are not entered.
  const walk = (v: object): void => {
    if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === 'object') walk(x);
      return;
    }
    // A tested figure holds no other test (its previous value and intervals carry none): not entered.
    if (isTested(v)) {
      found.push(v);
      return;
    }
    const o = v as Record<string, unknown>;
    for (const k in o) {
      const x = o[k];
      if (x !== null && typeof x === 'object') walk(x);
    }
  };
  if (body !== null && typeof body === 'object') walk(body);
  const flags = benjaminiHochberg(found.map((f) => f.p_value));
  found.forEach((f, i) => {
    const flag = flags[i] ?? null;
    f.significant_fdr = flag === null ? null : flag && f.significant === true;
  });
  return { method: 'benjamini-hochberg', q: FDR_Q, tests: flags.filter((x) => x !== null).length };
}
