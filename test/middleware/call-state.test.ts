/**
 * call-state's two helpers, called directly (they are what every step uses, not a middleware of their
 * own). `settled` reads a part of the call an earlier step sets: present, it returns it; missing, the
 * chain is miswired and it throws InternalError (internal_error, the cause naming the part, for the log).
 * `timed` runs one stage and records its duration in milliseconds (two decimals) on the call, whether
 * the work resolves or throws; the clock is faked so the durations are exact.
 */
import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { InternalError } from '#shared/errors.js';
import { settled, timed } from '#shared/middleware/call-state.js';
import { fakeCaller, newCall } from './fixtures.js';

/** performance.now() returns these, in order. */
function clock(...readings: number[]) {
  const spy = jest.spyOn(performance, 'now');
  for (const ms of readings) spy.mockReturnValueOnce(ms);
  return spy;
}

/** What `work` threw; a failure if it did not throw. */
function thrownBy(work: () => unknown): unknown {
  try {
    work();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw, got none');
}

afterEach(() => {
  jest.restoreAllMocks();
});

describe('settled', () => {
  test('a part that is set is returned as it is', () => {
    const caller = fakeCaller();
    expect(settled(newCall({ caller }), 'caller')).toBe(caller);
  });

  test('another part (the budget), once set, is returned as it is', () => {
    const budget = { limit: 60, remaining: 1, resetAfterSeconds: 5 };
    expect(settled(newCall({ budget }), 'budget')).toBe(budget);
  });

  test('a missing part throws InternalError (500 internal_error)', () => {
    const thrown = thrownBy(() => settled(newCall(), 'caller'));
    expect(thrown).toBeInstanceOf(InternalError);
    expect(thrown).toMatchObject({ status: 500, code: 'internal_error' });
  });

  test('the cause of the InternalError names the part that was read too early, for the log', () => {
    const thrown = thrownBy(() => settled(newCall(), 'budget')) as InternalError;
    expect((thrown.cause as Error).message).toBe("the call's budget was read before the step that sets it");
  });

  test('a part set to null counts as missing', () => {
    const call = newCall();
    (call as unknown as { read: null }).read = null;
    expect(() => settled(call, 'read')).toThrow(InternalError);
  });

  test("the caller's message is the fixed internal_error text, not the cause", () => {
    expect(() => settled(newCall(), 'prepared')).toThrow('Something failed on our side. Retry once, then report the request id.');
  });
});

describe('timed', () => {
  test('returns what the work resolves to', async () => {
    await expect(timed(newCall(), 'data', async () => 42)).resolves.toBe(42);
  });

  test('records the duration of the stage, rounded to two decimals', async () => {
    const call = newCall();
    clock(1_000, 1_012.3456);
    await timed(call, 'caller', async () => 'ok');
    expect(call.timings).toEqual({ caller: 12.35 });
  });

  test('records the duration even when the work throws, and the error goes on unchanged', async () => {
    const call = newCall();
    const failure = new Error('connection reset');
    clock(500, 503.5);
    await expect(
      timed(call, 'budget', async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(call.timings).toEqual({ budget: 3.5 });
  });

  test('each stage keeps its own entry', async () => {
    const call = newCall();
    clock(0, 1, 10, 12.5);
    await timed(call, 'caller', async () => null);
    await timed(call, 'budget', async () => null);
    expect(call.timings).toEqual({ caller: 1, budget: 2.5 });
  });
});
