import { describe, expect, test } from '@jest/globals';
import { fingerprint, newSecret, SECRET_PATTERN, visiblePrefix } from '#shared/keys.js';

describe('key secrets', () => {
  test('secrets have the documented form; only prefix and fingerprint are derived', () => {
    const s = newSecret();
    expect(s).toMatch(SECRET_PATTERN);
    expect(visiblePrefix(s)).toBe(s.slice(0, 12));
    expect(fingerprint(s)).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint(s)).not.toContain(s.slice(9));
  });
});
