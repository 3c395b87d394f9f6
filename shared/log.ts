import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** One structured JSON logger per process. Secrets never reach it: only key ids are logged. */
export const logger = new Logger({
  serviceName: 'geo-api',
  logLevel: (process.env.LOG_LEVEL as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT' | undefined) ?? 'INFO',
});

/**
 * One Metrics instance per process (module scope, like the logger). It writes CloudWatch Embedded
 * Metric Format lines to stdout: CloudWatch turns them into metrics with no API call and no added
 * latency. POWERTOOLS_METRICS_DISABLED=true turns it off; so does any LOG_LEVEL above INFO (see countCall).
 */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'geo-api',
  serviceName: 'geo-api',
});

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
