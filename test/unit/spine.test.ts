import { describe, expect, test } from '@jest/globals';
import { z } from 'zod';
import { CursorExpired, type InvalidRequest } from '#shared/errors.js';
import { fingerprint, newSecret, SECRET_PATTERN, visiblePrefix } from '#shared/keys.js';
import { bearerSecret } from '#shared/middleware/authenticate.js';
import { decodeCursor, encodeCursor } from '#shared/reads/cursor.js';
import { reads } from '#shared/reads/registry.js';
import { defineRead, pathParams } from '#shared/reads/types.js';
import { validateInput } from '#shared/reads/validate.js';
import { checkWindow, windowParams, windowSpec } from '#shared/reads/windows.js';
import { parseQuery } from '#shared/rest/query.js';
import { secondsToMinuteEnd } from '#shared/store/budget.js';

const read = defineRead({
  name: 'probe',
  family: 'figures',
  path: '/analyses/{analysis}/probe',
  summary: '',
  description: '',
  input: z
    .strictObject({ analysis: z.string(), limit: z.number().int().min(1).max(10).default(3), ...windowParams(['7d', '30d'], '30d') })
    .superRefine(checkWindow),
  output: z.object({}),
  errors: [],
  run: async () => ({}),
});

function refusal(fn: () => unknown): { name: string; param?: string } {
  try {
    fn();
  } catch (err) {
    return { name: (err as Error).constructor.name, ...((err as InvalidRequest).param ? { param: (err as InvalidRequest).param } : {}) };
  }
  return { name: 'none' };
}

describe('strict query parsing', () => {
  test('numbers only from canonical decimals', () => {
    expect(parseQuery(read, 'limit=7')).toEqual({ limit: 7 });
    expect(parseQuery(read, 'limit=1e1')).toEqual({ limit: '1e1' });
    expect(parseQuery(read, 'limit=010')).toEqual({ limit: '010' });
    // docs/contract.md#common-parameters rule 1 for integers: digits only. What JavaScript would round or
    // sign stays a string, for zod to refuse.
    for (const form of [
      '1.0',
      '5.',
      '.5',
      '0.9999999999999999999',
      '+5',
      '-0',
      '-1',
      '1E1',
      '9007199254740993',
      '99999999999999999999',
      '٣',
    ]) {
      expect(parseQuery(read, `limit=${encodeURIComponent(form)}`)).toEqual({ limit: form });
    }
    expect(parseQuery(read, 'limit=9007199254740991')).toEqual({ limit: 9007199254740991 });
    // Keys every object has by inheritance are unknown keys like any other, named in order.
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(refusal(() => parseQuery(read, `${key}=1&zzz=2`))).toEqual({ name: 'InvalidRequest', param: key });
    }
    // The first ? separates the query; a second one is part of the key.
    expect(refusal(() => parseQuery(read, '?limit=5'))).toEqual({ name: 'InvalidRequest', param: '?limit' });
    expect(parseQuery(read, 'window=7d')).toEqual({ window: '7d' });
  });
  test('unknown, repeated and path keys are refused by name', () => {
    expect(refusal(() => parseQuery(read, 'x=1'))).toEqual({ name: 'InvalidRequest', param: 'x' });
    expect(refusal(() => parseQuery(read, 'limit=1&limit=1'))).toEqual({ name: 'InvalidRequest', param: 'limit' });
    expect(refusal(() => parseQuery(read, 'analysis=a'))).toEqual({ name: 'InvalidRequest', param: 'analysis' });
  });
  test.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 11 }, 'limit'],
    [{ limit: 1.5 }, 'limit'],
    [{ window: 'last-run' }, 'window'],
    [{ from: '2026-02-30', to: '2026-03-01' }, 'from'],
    [{ from: '2026-13-01', to: '2026-12-01' }, 'from'],
    [{ from: '2026-03-02', to: '2026-03-01' }, 'from'],
    [{ from: '2026-03-01' }, 'to'],
    [{ to: '2026-03-01' }, 'from'],
    [{ window: '7d', from: '2026-03-01', to: '2026-03-02' }, 'window'],
  ])('%j is refused naming %s', (raw, param) => {
    expect(refusal(() => validateInput(read, { analysis: 'a', ...raw }))).toEqual({ name: 'InvalidRequest', param });
  });
  test('defaults apply and the window is understood', () => {
    const input = validateInput(read, { analysis: 'a' });
    expect(input.limit).toBe(3);
    expect(windowSpec(input, '30d')).toEqual({ kind: 'named', name: '30d' });
    expect(windowSpec(validateInput(read, { analysis: 'a', from: '2024-02-29', to: '2024-03-01' }), '30d')).toEqual({
      kind: 'custom',
      from: '2024-02-29',
      to: '2024-03-01',
    });
  });
});

describe('cursors', () => {
  const binding = { read: 'r', analysis: 'a', key: 'k', window: '7d' };
  test('round trip, bound to what produced them', () => {
    const c = encodeCursor('s'.repeat(32), binding, { at: 5 });
    expect(decodeCursor('s'.repeat(32), c, binding)).toEqual({ at: 5 });
    for (const other of [{ window: '30d' }, { key: 'k2' }, { analysis: 'b' }, { read: 'q' }]) {
      expect(() => decodeCursor('s'.repeat(32), c, { ...binding, ...other })).toThrow(CursorExpired);
    }
  });
  test('altered, truncated or signed with another secret: invalid, naming cursor', () => {
    const c = encodeCursor('s'.repeat(32), binding, 1);
    for (const bad of [`${c}A`, c.slice(0, -1), `x${c}`, c.replace('.', '..'), 'garbage', encodeCursor('t'.repeat(32), binding, 1)]) {
      expect(refusal(() => decodeCursor('s'.repeat(32), bad, binding))).toEqual({ name: 'InvalidRequest', param: 'cursor' });
    }
  });
});

describe('keys and the Authorization header', () => {
  test('secrets have the documented form; only prefix and fingerprint are derived', () => {
    const s = newSecret();
    expect(s).toMatch(SECRET_PATTERN);
    expect(visiblePrefix(s)).toBe(s.slice(0, 12));
    expect(fingerprint(s)).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint(s)).not.toContain(s.slice(9));
  });
  test.each([
    [`Bearer ${'geo_live_' + 'a'.repeat(40)}`, true],
    [`bearer ${'geo_live_' + 'a'.repeat(40)}`, true],
    [`Bearer  ${'geo_live_' + 'a'.repeat(40)}`, false],
    [`Bearer ${'geo_live_' + 'a'.repeat(40)}\n`, false],
    [`Bearer\t${'geo_live_' + 'a'.repeat(40)}`, false],
    [`Bearer ${'geo_live_' + 'a'.repeat(40)},Bearer ${'geo_live_' + 'b'.repeat(40)}`, false],
    ['Bearer geo_live_', false],
    [`Bearer ${'geo_live_' + 'a'.repeat(10_000)}`, false],
  ])('%j accepted: %s', (header, ok) => {
    expect(bearerSecret({ authorization: header }) !== null).toBe(ok);
  });
});

test('reset counts whole seconds to the end of the UTC minute, 1..60', () => {
  expect(secondsToMinuteEnd(new Date('2026-01-01T00:00:00.000Z'))).toBe(60);
  expect(secondsToMinuteEnd(new Date('2026-01-01T00:00:59.001Z'))).toBe(1);
  expect(secondsToMinuteEnd(new Date('2026-01-01T00:00:30.500Z'))).toBe(30);
});

describe('every read of the table is strict about its parameters (REST query and MCP arguments alike)', () => {
  test.each(reads.map((r) => [r.name, r] as const))('%s refuses an unknown parameter by name', (_name, r) => {
    const path = Object.fromEntries(pathParams(r.path).map((p) => [p, 'x']));
    expect(refusal(() => validateInput(r, { ...path, surplus: 1 }))).toEqual({
      name: 'InvalidRequest',
      param: 'surplus',
    });
  });
});
