import type { Tracer as PowertoolsTracer } from '@aws-lambda-powertools/tracer';
import { tracingConfig } from '../config/tracing.js';
import { ApiError } from '../errors.js';
import { logger } from '../log.js';
import type { Db } from './db.js';

/**
 * X-Ray spans for the three round trips of a call: `caller` (the caller statement), `budget` (the budget
 * UpdateItem) and `data` (the read's statement), the names of Server-Timing and of the request line's
 * `*_ms` fields. Lambda's active tracing makes the invocation's segment; each span is a subsegment of it,
 * made and sent to the daemon by Powertools' tracer (over aws-xray-sdk-core, AWS's client of the daemon).
 * The tracer is imported on the first span of a process that traces, never in one that does not (the
 * local stack, the tests, a stage with tracing off), and CDK ships it as a file of its own beside the
 * function's bundle, so only a traced function reads and pays for it (docs/operating.md#tracing). Off, or in an invocation X-Ray did not sample, a span is the work itself.
 */

/** What a span needs of the tracer: the segment in progress, and setting it. */
export type SegmentTracer = Pick<PowertoolsTracer, 'getSegment' | 'setSegment' | 'isTracingEnabled'>;

/** Where the tracer comes from; the functions' is the dynamic import of Powertools' tracer. */
export type LoadTracer = () => Promise<SegmentTracer>;

/** The SDK's log, at warn and above, through the one logger; below that it has nothing a caller needs. */
const sdkLog = {
  debug: () => {},
  info: () => {},
  warn: (message: string) => logger.warn('x-ray sdk', { detail: message }),
  error: (message: string) => logger.error('x-ray sdk', { detail: message }),
};

let loadedTracer = false;
/** Whether this process has imported Powertools' tracer (and with it aws-xray-sdk-core). */
export function tracerLoaded(): boolean {
  return loadedTracer;
}

/**
 * Powertools' tracer, imported here only. No HTTP or fetch capture: the spans are the three round trips
 * named above, nothing else of a call.
 */
export const loadPowertoolsTracer: LoadTracer = async () => {
  const { Tracer } = await import('@aws-lambda-powertools/tracer');
  loadedTracer = true;
  const tracer = new Tracer({ captureHTTPsRequests: false });
  tracer.provider.setLogger(sdkLog);
  return tracer;
};

export interface Tracer {
  readonly enabled: boolean;
  span<T>(name: string, work: () => Promise<T>): Promise<T>;
}

/**
 * A tracer over the one `load` gives, loaded on the first span. With `load` undefined it is off: `span`
 * runs the work and returns its promise untouched, and nothing is loaded.
 */
export function createTracer(load: LoadTracer | undefined): Tracer {
  if (!load) return { enabled: false, span: (_name, work) => work() };
  let loading: Promise<SegmentTracer | undefined> | undefined;
  const loaded = () => {
    loading ??= load().then(
      (t) => (t.isTracingEnabled() ? t : undefined),
      (err: unknown) => {
        // A tracer that cannot load costs the traces, never the calls.
        logger.error('x-ray tracer unavailable', { error: err as Error });
        return undefined;
      },
    );
    return loading;
  };
  return {
    enabled: true,
    async span(name, work) {
      const tracer = await loaded();
      const parent = tracer?.getSegment();
      if (!tracer || !parent) return work();
      const subsegment = parent.addNewSubsegment(name);
      subsegment.addAttribute('namespace', 'remote');
      tracer.setSegment(subsegment);
      try {
        return await work();
      } catch (err) {
        // A refusal of the caller's making (429 past the budget) is an error; anything else a fault.
        if (err instanceof ApiError && err.status < 500) subsegment.addErrorFlag();
        else subsegment.addFaultFlag();
        throw err;
      } finally {
        subsegment.close();
        tracer.setSegment(parent);
      }
    },
  };
}

let processTracer: Tracer | undefined;
function tracer(): Tracer {
  processTracer ??= createTracer(tracingConfig().daemon ? loadPowertoolsTracer : undefined);
  return processTracer;
}

/** Runs `work` as the span `name` of the invocation in progress, when this process traces. */
export function span<T>(name: string, work: () => Promise<T>): Promise<T> {
  return tracer().span(name, work);
}

/** The store as a read sees it, its statement traced as the span `data`; the store itself when tracing is off. */
export function tracedDb(db: Db): Db {
  const t = tracer();
  if (!t.enabled) return db;
  return { query: <R>(text: string, params?: unknown[]) => t.span('data', () => db.query<R>(text, params)) };
}
