import { describe, expect, test } from '@jest/globals';
import { disjoint, meanFigure, rate, rateFigure, wilson } from '../../shared/figures/stats.js';
import { resolveWindow, splitMonths, type RunRef } from '../../shared/figures/window.js';

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

describe('window resolution', () => {
  const run = (id: string, day: string): RunRef => ({ id, state: 'finished', started_at: `${day}T06:00:00.000Z`, collected_at: null, finished_at: null, day });
  const runs = { last: run('b', '2025-03-10'), previous: run('a', '2025-03-09'), firstDay: '2024-01-05' };
  test('Nd ends on the day of the last finished collection; comparison just before', () => {
    expect(resolveWindow({ kind: 'named', name: '7d' }, runs)).toMatchObject({
      current: { kind: 'days', from: '2025-03-04', to: '2025-03-10' },
      previous: { kind: 'days', from: '2025-02-25', to: '2025-03-03' },
    });
  });
  test('last-run compares with the previous run; all with nothing; custom with equal length before', () => {
    expect(resolveWindow({ kind: 'named', name: 'last-run' }, runs)).toMatchObject({ current: { kind: 'run' }, previous: { kind: 'run', run: { id: 'a' } } });
    expect(resolveWindow({ kind: 'named', name: 'all' }, runs)).toMatchObject({ current: { from: '2024-01-05', to: '2025-03-10' }, previous: null });
    expect(resolveWindow({ kind: 'custom', from: '2024-02-28', to: '2024-03-01' }, runs).previous).toEqual({ kind: 'days', from: '2024-02-25', to: '2024-02-27' });
    expect(resolveWindow({ kind: 'named', name: '30d' }, { last: null, previous: null, firstDay: null }).current).toBeNull();
  });
  test('whole months are split from the edge days', () => {
    expect(splitMonths('2025-01-15', '2025-04-10')).toEqual({ months: ['2025-02-01', '2025-03-01'], edges: [['2025-01-15', '2025-01-31'], ['2025-04-01', '2025-04-10']] });
    expect(splitMonths('2025-02-01', '2025-02-28')).toEqual({ months: ['2025-02-01', '2025-02-01'], edges: [] });
    expect(splitMonths('2024-02-01', '2024-02-28')).toEqual({ months: null, edges: [['2024-02-01', '2024-02-28']] });
    expect(splitMonths('2025-03-04', '2025-03-10')).toEqual({ months: null, edges: [['2025-03-04', '2025-03-10']] });
  });
});
