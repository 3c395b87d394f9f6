import { describe, expect, test } from '@jest/globals';
import {
  applyFdr,
  benjaminiHochberg,
  excludesZero,
  mean,
  meanFigure,
  meanInterval,
  newcombe,
  newcombeP,
  normalTwoSided,
  rate,
  rateChange,
  rateFigure,
  tCdf,
  tQuantile,
  welch,
  welchP,
  wilson,
} from '#shared/reads/stats.js';

describe('Wilson 95% interval (values from a calculator)', () => {
  test.each([
    [0, 6, { low: 0, high: 0.390334 }],
    [6, 6, { low: 0.609666, high: 1 }],
    [2, 4, { low: 0.150039, high: 0.849961 }],
    [10, 13, { low: 0.497436, high: 0.918205 }],
  ])('%i of %i', (k, n, expected) => {
    expect(wilson(k, n)).toEqual(expected);
  });
  test('n = 0: no interval, null value', () => {
    expect(wilson(0, 0)).toBeNull();
    expect(rate(0, 0)).toEqual({ value: null, numerator: 0, denominator: 0, ci95: null });
  });
});

/**
 * Newcombe RG (1998). Interval estimation for the difference between independent proportions: comparison
 * of eleven methods. Statistics in Medicine 17, 873-890. Table II, method 10 (score, no continuity
 * correction), the eight worked examples, published to 4 decimals.
 */
describe('Newcombe hybrid score interval (Newcombe 1998, Table II, method 10)', () => {
  test.each([
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.809],
    [6, 7, 2, 7, 0.0582, 0.8062],
    [5, 56, 0, 29, -0.0381, 0.1926],
    [0, 10, 0, 20, -0.1611, 0.2775],
    [0, 10, 0, 10, -0.2775, 0.2775],
    [10, 10, 0, 20, 0.6791, 1],
    [10, 10, 0, 10, 0.6075, 1],
  ])('%i/%i − %i/%i: %f to %f', (k1, n1, k2, n2, low, high) => {
    const iv = newcombe(k1, n1, k2, n2);
    expect(iv?.low).toBeCloseTo(low, 4);
    expect(iv?.high).toBeCloseTo(high, 4);
  });
  test('no denominator on either side: null', () => {
    expect(newcombe(0, 0, 1, 2)).toBeNull();
    expect(newcombe(1, 2, 0, 0)).toBeNull();
  });
});

/** Two-sided 95% quantiles of Student's t (tables; the non-integer ones from scipy.stats.t.ppf(0.975, df)). */
describe('t quantile', () => {
  test.each([
    [1, 12.7062047],
    [2, 4.3026527],
    [3, 3.1824463],
    [4, 2.7764451],
    [5, 2.5705818],
    [10, 2.2281389],
    [20, 2.0859634],
    [30, 2.0422725],
    [60, 2.0002978],
    [100, 1.9839715],
    [1000, 1.9623391],
    [1.5, 6.0166631],
    [2.5, 3.5746548],
    [7.3, 2.3450667],
  ])('df %f: %f', (df, q) => {
    expect(Math.abs(tQuantile(0.975, df) - q)).toBeLessThan(1e-6);
  });
  test('other levels, and refusals', () => {
    expect(tQuantile(0.95, 10)).toBeCloseTo(1.8124611, 6);
    expect(tQuantile(0.995, 5)).toBeCloseTo(4.032143, 6);
    expect(() => tQuantile(0.4, 3)).toThrow(RangeError);
    expect(() => tQuantile(0.975, 0)).toThrow(RangeError);
  });
  /** The root of tCdf(t, df) = p by plain bisection: slow, but shares nothing with tQuantile's iteration. */
  function bisected(p: number, df: number): number {
    let lo = 0;
    let hi = 1;
    while (tCdf(hi, df) < p) hi *= 2;
    while (hi - lo > 1e-13 * hi) {
      const mid = (lo + hi) / 2;
      if (tCdf(mid, df) < p) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  }
  // Welch's df is real: a log-spaced grid of non-integer df, through the Halley path and the Newton fallback (small df).
  test.each([
    [0.975, 3000],
    [0.95, 300],
    [0.995, 300],
  ])('p %f: agrees with bisection on the CDF over %i df from 1.01 to 1e6', (p, count) => {
    let worst = 0;
    let worstDf = 0;
    for (let i = 0; i < count; i++) {
      const df = 1.01 * (1e6 / 1.01) ** (i / (count - 1)) + 1e-3 * Math.SQRT2;
      const err = Math.abs(tQuantile(p, df) / bisected(p, df) - 1);
      if (err > worst) [worst, worstDf] = [err, df];
    }
    expect({ worst, worstDf, ok: worst < 1e-9 }).toMatchObject({ ok: true });
  });
});

describe('intervals of means', () => {
  test('t interval: values 1, 2, 3, 4 → mean 2.5 ± t(3) · s/2', () => {
    // s² = 5/3; half = 3.1824463 · √(5/12) = 2.054260
    expect(meanInterval({ sum: 10, sq: 30, n: 4 })).toEqual({ low: 0.44574, high: 4.55426 });
    expect(mean({ sum: 10, sq: 30, n: 4 })).toEqual({ value: 2.5, count: 4, ci95: { low: 0.44574, high: 4.55426 } });
  });
  test('n < 2: no interval; zero variance: a point', () => {
    expect(meanInterval({ sum: 0, sq: 0, n: 0 })).toBeNull();
    expect(meanInterval({ sum: 2, sq: 4, n: 1 })).toBeNull();
    expect(meanInterval({ sum: 0.9, sq: 0.27, n: 3 })).toEqual({ low: 0.3, high: 0.3 });
  });
  test('Welch: 1, 2, 3, 4 against 2, 2, 5 (df from Welch–Satterthwaite)', () => {
    // a: mean 2.5, var 5/3, /n = 0.416667; b: mean 3, var 3, /n = 1; se² = 1.416667;
    // df = 1.416667² / (0.416667²/3 + 1²/2) = 3.597510; t = 2.903348 (scipy.stats.t.ppf); delta −0.5 ± 3.455676
    expect(welch({ sum: 10, sq: 30, n: 4 }, { sum: 9, sq: 33, n: 3 })).toEqual({ low: -3.955676, high: 2.955676 });
    expect(welch({ sum: 2, sq: 2, n: 2 }, { sum: 4, sq: 8, n: 2 })).toEqual({ low: -1, high: -1 });
    expect(welch({ sum: 2, sq: 4, n: 1 }, { sum: 4, sq: 8, n: 2 })).toBeNull();
  });
});

describe('comparison', () => {
  test('significant when the Newcombe interval of the change excludes 0', () => {
    expect(rateFigure(10, 13, { k: 0, n: 6 })).toMatchObject({ delta: 0.769231, significant: true });
    expect(rateFigure(2, 4, { k: 2, n: 3 })).toMatchObject({ delta: -0.166667, significant: false });
    expect(rateFigure(2, 4, null)).toMatchObject({ previous: null, delta: null, delta_ci95: null, significant: null });
    expect(rateFigure(0, 0, { k: 1, n: 2 })).toMatchObject({ value: null, delta: null, delta_ci95: null, significant: null });
    // Overlapping Wilson intervals, yet a change at the 5% level: 56/70 [0.6934, 0.8737] vs 48/80 [0.4906, 0.7010].
    expect(rateFigure(56, 70, { k: 48, n: 80 })).toMatchObject({ delta: 0.2, significant: true });
    expect(excludesZero({ low: 0, high: 0.5 })).toBe(false);
    expect(excludesZero(null)).toBeNull();
  });
  test('averages: value, interval, previous, delta, Welch interval', () => {
    expect(meanFigure({ sum: 3, sq: 5, n: 2 }, { sum: 2, sq: 2, n: 2 })).toMatchObject({
      value: 1.5,
      count: 2,
      previous: { value: 1, count: 2, ci95: { low: 1, high: 1 } },
      delta: 0.5,
    });
    expect(meanFigure({ sum: 0, sq: 0, n: 0 }, { sum: 2, sq: 2, n: 2 })).toEqual({
      value: null,
      count: 0,
      ci95: null,
      previous: { value: 1, count: 2, ci95: { low: 1, high: 1 } },
      delta: null,
      delta_ci95: null,
      significant: null,
      p_value: null,
      significant_fdr: null,
    });
  });
});

const moments = (xs: number[]) => ({ sum: xs.reduce((a, x) => a + x, 0), sq: xs.reduce((a, x) => a + x * x, 0), n: xs.length });

describe('p-values consistent with the published intervals', () => {
  test('the normal tail: 2·(1 − Φ(z)) at published quantiles', () => {
    expect(normalTwoSided(1.959963984540054)).toBeCloseTo(0.05, 7);
    expect(normalTwoSided(2.5758293035489)).toBeCloseTo(0.01, 7);
    expect(normalTwoSided(0)).toBe(1);
  });

  test('Welch: R’s t.test(extra ~ group, data = sleep) gives p = 0.07939 (t = −1.8608, df = 17.776)', () => {
    const g1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
    const g2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];
    expect(welchP(moments(g1), moments(g2))).toBeCloseTo(0.07939, 5);
    expect(meanFigure(moments(g1), moments(g2)).p_value).toBeCloseTo(0.07939, 5);
  });

  test('Welch: equal means 1; zero variances 0 for a difference; fewer than 2 values null', () => {
    expect(welchP(moments([1, 2, 3]), moments([3, 2, 1]))).toBe(1);
    expect(welchP(moments([2, 2]), moments([1, 1]))).toBe(0);
    expect(welchP(moments([2, 2]), moments([2, 2]))).toBe(1);
    expect(welchP(moments([2]), moments([1, 3]))).toBeNull();
  });

  test('Newcombe: p below 0.05 exactly when the 95% interval excludes 0, over a grid of counts', () => {
    for (const [n1, n2] of [
      [4, 3],
      [10, 6],
      [13, 6],
      [40, 55],
    ] as const)
      for (let k1 = 0; k1 <= n1; k1++)
        for (let k2 = 0; k2 <= n2; k2++) {
          const p = newcombeP(k1, n1, k2, n2) as number;
          const iv = newcombe(k1, n1, k2, n2);
          expect([k1, n1, k2, n2, p < 0.05]).toEqual([k1, n1, k2, n2, excludesZero(iv)]);
        }
  });

  test('Newcombe: by hand, 5 of 10 against 0 of 6, and equal rates', () => {
    // At z = 2.27, the Wilson bounds put the interval's low end near 0; bisected, p = 2·(1 − Φ(z*)).
    const p = newcombeP(5, 10, 0, 6) as number;
    expect(p).toBeGreaterThan(0.01);
    expect(p).toBeLessThan(0.05);
    expect(newcombeP(3, 6, 1, 2)).toBe(1);
    expect(newcombeP(1, 0, 1, 2)).toBeNull();
    expect(rateFigure(5, 10, { k: 0, n: 6 }).p_value).toBeCloseTo(p, 6);
    expect(rateFigure(5, 10, null).p_value).toBeNull();
  });

  test('a change alone (a series day) is the change its rate figure carries', () => {
    for (const [k, n, pk, pn] of [
      [5, 10, 0, 6],
      [0, 0, 3, 4],
      [3, 4, 0, 0],
      [7, 7, 7, 7],
      [120, 1200, 150, 1190],
    ] as const) {
      const { delta, delta_ci95, significant, p_value, significant_fdr } = rateFigure(k, n, { k: pk, n: pn });
      expect(rateChange(k, n, { k: pk, n: pn })).toEqual({ delta, delta_ci95, significant, p_value, significant_fdr });
    }
  });
});

describe('Benjamini–Hochberg across one reply', () => {
  test('step-up at q = 0.05: every p-value up to the largest k with p(k) ≤ k·q/m', () => {
    // Sorted 0.005, 0.01, 0.03, 0.04, 0.5 against 0.01, 0.02, 0.03, 0.04, 0.05: k = 4.
    expect(benjaminiHochberg([0.01, 0.04, 0.03, 0.005, 0.5])).toEqual([true, true, true, true, false]);
    // 0.02 > 1·0.05/3, but 0.04 ≤ 3·0.05/3 rejects all three (step-up, not step-down).
    expect(benjaminiHochberg([0.02, 0.03, 0.04])).toEqual([true, true, true]);
    expect(benjaminiHochberg([0.2, null, 0.04])).toEqual([false, null, false]);
    expect(benjaminiHochberg([])).toEqual([]);
  });

  test('ties at the cut are discoveries together, as the ranks of the step-up rule give them', () => {
    // The rule by ranks, written out: sort (p, index), largest rank k with p(k) ≤ k·q/m, ranks 1..k flagged.
    const byRanks = (ps: (number | null)[]) => {
      const tested = ps.flatMap((p, i) => (p === null ? [] : [{ p, i }])).sort((a, b) => a.p - b.p || a.i - b.i);
      const m = tested.length;
      let k = 0;
      tested.forEach((t, r) => {
        if (t.p <= ((r + 1) * 0.05) / m) k = r + 1;
      });
      const out: (boolean | null)[] = ps.map((p) => (p === null ? null : false));
      for (const t of tested.slice(0, k)) out[t.i] = true;
      return out;
    };
    // 0.03 three times among four tests: rank 2's 0.03 > 2·0.05/4, rank 3's 0.03 ≤ 3·0.05/4, so all three.
    expect(benjaminiHochberg([0.03, 0.2, 0.03, 0.03])).toEqual([true, false, true, true]);
    let seed = 7;
    const next = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    for (let round = 0; round < 300; round++) {
      // p-values on a coarse grid, so that ties are common, with a null now and then.
      const ps = Array.from({ length: 1 + Math.floor(next() * 40) }, () => (next() < 0.1 ? null : Math.floor(next() * 30) / 300));
      expect([ps, benjaminiHochberg(ps)]).toEqual([ps, byRanks(ps)]);
    }
  });

  test('applyFdr: finds every tested figure, counts the tests, never flags beyond significant', () => {
    const a = rateFigure(8, 10, { k: 0, n: 4 });
    const b = rateFigure(5, 10, { k: 4, n: 10 });
    const c = meanFigure(moments([1, 1, 2]), moments([3, 3, 4]));
    const d = rateFigure(1, 2, null);
    const reply = { x: a, list: [{ y: b }, { z: c, w: d }] };
    expect(applyFdr(reply)).toEqual({ method: 'benjamini-hochberg', q: 0.05, tests: 3 });
    const flags = benjaminiHochberg([a.p_value, b.p_value, c.p_value]);
    expect([a.significant_fdr, b.significant_fdr, d.significant_fdr]).toEqual([true, false, null]);
    expect([a.significant, b.significant]).toEqual([true, false]);
    expect(c.significant_fdr).toBe(flags[2] === true && c.significant === true);
    // A p-value just under the cut with significant false (a bound rounded onto 0) stays unflagged.
    const edge = { p_value: 0.001, significant: false, significant_fdr: null as boolean | null };
    applyFdr({ edge });
    expect(edge.significant_fdr).toBe(false);
  });
});
