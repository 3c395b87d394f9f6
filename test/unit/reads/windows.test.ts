import { describe, expect, test } from '@jest/globals';
import { validateInput } from '#shared/reads/validate.js';
import { windowSpec } from '#shared/reads/windows.js';
import { read } from '../fixtures.js';

describe('the window as asked', () => {
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
