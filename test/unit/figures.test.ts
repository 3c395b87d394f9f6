import { describe, expect, test } from '@jest/globals';
import { disjoint, meanFigure, rate, rateFigure, wilson } from '#shared/reads/figures/stats.js';

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

describe('comparison', () => {
  test('significant only when the intervals do not overlap', () => {
    expect(rateFigure(10, 13, { k: 0, n: 6 })).toMatchObject({ delta: 0.769231, significant: true });
    expect(rateFigure(2, 4, { k: 2, n: 3 })).toMatchObject({ delta: -0.166667, significant: false });
    expect(rateFigure(2, 4, null)).toMatchObject({ previous: null, delta: null, significant: null });
    expect(rateFigure(0, 0, { k: 1, n: 2 })).toMatchObject({ value: null, delta: null, significant: null });
    expect(disjoint({ low: 0, high: 0.5 }, { low: 0.5, high: 1 })).toBe(false);
  });
  test('averages: value, previous, delta, no interval', () => {
    expect(meanFigure(3, 2, { sum: 2, n: 2 })).toEqual({ value: 1.5, count: 2, previous: { value: 1, count: 2 }, delta: 0.5 });
    expect(meanFigure(0, 0, { sum: 2, n: 2 })).toEqual({ value: null, count: 0, previous: { value: 1, count: 2 }, delta: null });
  });
});
