import { describe, expect, test } from '@jest/globals';
import { parseQuery } from '#shared/rest/query.js';
import { read, refusal } from '../fixtures.js';

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
});
