import { Logger } from '@aws-lambda-powertools/logger';

/** One structured JSON logger per process. Secrets never reach it: only key ids are logged. */
export const logger = new Logger({
  serviceName: 'geo-api',
  logLevel: (process.env.LOG_LEVEL as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT' | undefined) ?? 'INFO',
});
