import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { types } from './builtins.js';
import { baseConfig } from './config/base.js';
import { ApiError } from './errors.js';

/** The one structured JSON logger of a process. Secrets never reach it: keys appear by id only. */
export const logger = new Logger({ serviceName: 'geo-api', logLevel: baseConfig().logLevel });

/**
 * One Metrics instance per process (module scope, like the logger). It writes CloudWatch Embedded
 * Metric Format lines to stdout: CloudWatch turns them into metrics with no API call and no added
 * latency. POWERTOOLS_METRICS_DISABLED=true turns it off; so does any LOG_LEVEL above INFO (see countCall).
 */
export const metrics = new Metrics({ namespace: baseConfig().metricsNamespace, serviceName: 'geo-api' });

/** Levels at which the request line is written; the count goes with it. */
const COUNTED_LEVELS = new Set(['TRACE', 'DEBUG', 'INFO']);

/**
 * Counts one finished request, by read and error code ("none" for a served call), and flushes at once:
 * a Lambda may be frozen right after the response, so nothing is left buffered between calls.
 * Emitted where the request log line is (LOG_LEVEL INFO or DEBUG, the deployed default), so tests,
 * which run at ERROR or SILENT, stay quiet and pay nothing.
 */
export function countCall(read: string | undefined, errorCode: string | undefined): void {
  if (!COUNTED_LEVELS.has(logger.getLevelName())) return;
  metrics.addDimensions({ read: read ?? 'none', error_code: errorCode ?? 'none' });
  metrics.addMetric('requests', MetricUnit.Count, 1);
  metrics.publishStoredMetrics();
}

/** A cause as a plain log object: classified store and budget causes as they are, errors by name, code and message. */
function causeOf(cause: unknown): Record<string, unknown> {
  // isNativeError: socket errors come from Node's core, another realm than the code under jest's vm.
  if (cause instanceof Error || types.isNativeError(cause)) {
    const code = (cause as { code?: unknown }).code;
    const inner = (cause as { cause?: unknown }).cause;
    return {
      name: cause.name,
      ...(typeof code === 'string' ? { code } : {}),
      message: cause.message,
      ...(inner && typeof inner === 'object' && !(inner instanceof Error) ? inner : {}),
    };
  }
  return cause && typeof cause === 'object' ? (cause as Record<string, unknown>) : { message: String(cause) };
}

/**
 * The log line of a fault, under the request id. An unknown error is logged in full ("unhandled fault";
 * the caller sees internal_error and nothing of it). A refusal caused by a fault (store unavailable, a
 * configuration fault, the budget counter failing) gets a `fault` line with its cause: SQLSTATE, errno or
 * message, phase. Refusals of the caller's own making (401, 404, 422, 429) carry no cause and log nothing.
 */
export function logFault(err: unknown, requestId: string, where: Record<string, unknown> = {}): void {
  if (!(err instanceof ApiError)) {
    logger.error('unhandled fault', { request_id: requestId, ...where, error: err as Error, cause: causeOf(err) });
    return;
  }
  if (err.cause === undefined) return;
  // `code`, not `error_code`: the alarms' metric filters count request lines by error_code, once per call.
  const line = { request_id: requestId, ...where, code: err.code, status: err.status, cause: causeOf(err.cause) };
  if (err.status >= 500 && err.status !== 503) logger.error('fault', line);
  else logger.warn('fault', line);
}
