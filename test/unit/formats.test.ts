import { describe, expect, test } from '@jest/globals';
import { isUuid } from '#shared/formats.js';
import { uuid } from '#shared/reads/contracts/common.js';

/** docs/contract.md#endpoints: identifiers in any form the store holds, in either case; nothing else. */
describe('isUuid and the contract uuid take any 8-4-4-4-12 hexadecimal string, either case', () => {
  test.each([
    '00000000-0000-0000-0000-000000000000',
    '00000000-0000-0000-0000-000000000001',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
    '12345678-1234-1234-1234-1234567890ab',
    'abcdef01-2345-0789-cbcd-ef0123456789',
    '0189D6F0-7A3B-7C4D-9E5F-A0B1C2D3E4F5',
  ])('%s: an identifier', (value) => {
    expect(isUuid(value)).toBe(true);
    expect(uuid.safeParse(value).success).toBe(true);
  });

  test.each([
    '',
    '{00000000-0000-0000-0000-000000000001}',
    'urn:uuid:00000000-0000-0000-0000-000000000001',
    '00000000000000000000000000000001',
    '00000000-0000-0000-0000-00000000001',
    '00000000-0000-0000-0000-0000000000011',
    '00000000-0000-0000-0000-00000000000g',
    '00000000-0000-0000-0000-000000000001\n',
    ' 00000000-0000-0000-0000-000000000001',
    'latest',
    'none',
  ])('%j: not an identifier', (value) => {
    expect(isUuid(value)).toBe(false);
    expect(uuid.safeParse(value).success).toBe(false);
  });
});
