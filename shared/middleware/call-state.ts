import type { Request } from '@middy/core';
import type { Context } from 'aws-lambda';
import { type ApiError, InternalError } from '../errors.js';
import type { Prepared } from '../reads/execute.js';
import type { ReadDef } from '../reads/types.js';
import type { BudgetState } from '../store/budget.js';
import type { Caller } from '../store/caller.js';
import type { Event, Result } from './response.js';

/** Milliseconds spent in each stage, for the request log and Server-Timing. */
export interface Timings {
  caller?: number;
  budget?: number;
  data?: number;
}

/**
 * What the chain learns about one call as it goes. The request-id step creates it; each later step
 * sets its own part: authenticate the caller, budget the budget, the route or tool the read, input the
 * prepared input. Parts a step needs from an earlier one are read with `settled`.
 */
export interface Call {
  readonly requestId: string;
  readonly startedAt: number;
  readonly timings: Timings;
  caller?: Caller;
  budget?: BudgetState;
  read?: ReadDef;
  prepared?: Prepared;
  /** The refusal the caller got, for the request log. */
  error?: ApiError;
}

export interface CallContext extends Context {
  call: Call;
}

export type CallRequest = Request<Event, Result, Error, CallContext>;

type StagedPart = 'caller' | 'budget' | 'read' | 'prepared';

/**
 * A part of the call that an earlier step sets. Read before that step ran, it is a wiring fault of the
 * chain, refused as internal_error (logged in full), never served with a part missing.
 */
export function settled<K extends StagedPart>(call: Call, part: K): NonNullable<Call[K]> {
  const value = call[part];
  if (value === undefined || value === null) throw new InternalError(new Error(`the call's ${part} was read before the step that sets it`));
  return value;
}

/** Runs one stage of the call and records its duration. */
export async function timed<T>(call: Call, stage: keyof Timings, work: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await work();
  } finally {
    call.timings[stage] = Math.round((performance.now() - t0) * 100) / 100;
  }
}
