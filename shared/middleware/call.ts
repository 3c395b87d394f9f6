import type { Context } from 'aws-lambda';
import type { ApiError } from '../errors.js';
import type { BudgetState, Identity, ReadDef } from '../reads/types.js';

/** What the chain learns about one call as it goes; read by later steps and by the envelope. */
export interface Call {
  requestId: string;
  startedAt: number;
  identity?: Identity;
  budget?: BudgetState;
  read?: ReadDef;
  input?: Record<string, unknown>;
  analysis?: { id: string; slug: string };
  error?: ApiError;
  /** Milliseconds spent in each stage, for the request log and the benchmark split. */
  timings: { identity?: number; budget?: number; data?: number };
}

export interface CallContext extends Context {
  call: Call;
}

export async function timed<T>(call: Call, stage: keyof Call['timings'], work: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await work();
  } finally {
    call.timings[stage] = Math.round((performance.now() - t0) * 100) / 100;
  }
}
