/**
 * What the unit tests of the read path share: a probe read (a limit with a default, a window) that the
 * query parsing, input validation and window tests run on, so each sees the same input as the others; and
 * `refusal`, which names the error a call throws and the parameter it names, so a test compares both at once.
 */
import { z } from 'zod';
import type { InvalidRequest } from '#shared/errors.js';
import { defineRead } from '#shared/reads/types.js';
import { checkWindow, windowParams } from '#shared/reads/windows.js';

export const read = defineRead({
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

export function refusal(fn: () => unknown): { name: string; param?: string } {
  try {
    fn();
  } catch (err) {
    return { name: (err as Error).constructor.name, ...((err as InvalidRequest).param ? { param: (err as InvalidRequest).param } : {}) };
  }
  return { name: 'none' };
}
