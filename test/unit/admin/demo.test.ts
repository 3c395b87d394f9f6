import { describe, expect, test } from '@jest/globals';
import { demoManifest } from '#shared/admin/demo.js';

/**
 * The demo's default end day (shared/admin/demo.ts): today, unless today's run would not have happened yet
 * at the time of the seed; then yesterday, so that no run, answer or creation lies in the future.
 */
describe('the demo never shows what has not happened yet', () => {
  test('before today’s run has finished (06:21 UTC): the history ends yesterday', () => {
    expect(demoManifest({ now: new Date('2026-11-28T06:21:00Z') }).endDate).toBe('2026-11-27');
    expect(demoManifest({ now: new Date('2026-11-28T00:00:00Z') }).endDate).toBe('2026-11-27');
  });

  test('once it has (08:00 UTC): the history ends today', () => {
    expect(demoManifest({ now: new Date('2026-11-28T08:00:00Z') }).endDate).toBe('2026-11-28');
  });

  test('an end day given explicitly is kept, whatever the clock', () => {
    expect(demoManifest({ endDate: '2026-11-28', now: new Date('2026-11-28T06:21:00Z') }).endDate).toBe('2026-11-28');
  });
});
