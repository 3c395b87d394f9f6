import { describe, expect, test } from '@jest/globals';
import { validateInput } from '#shared/reads/validate.js';
import { read, refusal } from '../fixtures.js';

describe('input validation refuses a bad value naming its parameter', () => {
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
});
