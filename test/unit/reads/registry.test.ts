import { describe, expect, test } from '@jest/globals';
import { reads } from '#shared/reads/registry.js';
import { pathParams } from '#shared/reads/types.js';
import { validateInput } from '#shared/reads/validate.js';
import { refusal } from '../fixtures.js';

describe('every read of the table is strict about its parameters (REST query and MCP arguments alike)', () => {
  test.each(reads.map((r) => [r.name, r] as const))('%s refuses an unknown parameter by name', (_name, r) => {
    const path = Object.fromEntries(pathParams(r.path).map((p) => [p, 'x']));
    expect(refusal(() => validateInput(r, { ...path, surplus: 1 }))).toEqual({
      name: 'InvalidRequest',
      param: 'surplus',
    });
  });
});
