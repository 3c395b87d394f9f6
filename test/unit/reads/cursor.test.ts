import { describe, expect, test } from '@jest/globals';
import { CursorExpired } from '#shared/errors.js';
import { decodeCursor, encodeCursor } from '#shared/reads/cursor.js';
import { refusal } from '../fixtures.js';

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
