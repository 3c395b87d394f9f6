/**
 * Configuration is read from the environment in this folder only, parsed once per process; a
 * malformed value fails the cold start rather than guessing. Three parts, for three kinds of function:
 * - base.ts (here): the api switch and the log settings, which every function has. Parsed without zod,
 *   so the OpenAPI function, which has no other configuration, does not load the contracts library.
 * - service.ts: a keyed function's stores, budget, cursors and MCP origins.
 * - migrate.ts: the migration function's owner connection and the reader role it grants.
 */

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
const LOG_LEVELS: readonly LogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'];

/** The operator's kill switch: API_DISABLED (true|false, default false), API_DISABLED_RETRY_AFTER (seconds ≥ 1, default 300). */
export interface ApiSwitch {
  disabled: boolean;
  retryAfter: number;
}

export interface BaseConfig {
  apiSwitch: ApiSwitch;
  /** LOG_LEVEL, default INFO. */
  logLevel: LogLevel;
  /** POWERTOOLS_METRICS_NAMESPACE, default geo-api: where the request counts land in CloudWatch. */
  metricsNamespace: string;
}

export function parseBaseConfig(env: NodeJS.ProcessEnv = process.env): BaseConfig {
  const disabled = env.API_DISABLED ?? 'false';
  const retryAfter = env.API_DISABLED_RETRY_AFTER ?? '300';
  const logLevel = env.LOG_LEVEL ?? 'INFO';
  if (disabled !== 'true' && disabled !== 'false') throw new Error('invalid configuration: API_DISABLED must be true or false');
  if (!/^[1-9]\d*$/.test(retryAfter))
    throw new Error('invalid configuration: API_DISABLED_RETRY_AFTER must be a whole number of seconds ≥ 1');
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    throw new Error(`invalid configuration: LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  return {
    apiSwitch: { disabled: disabled === 'true', retryAfter: Number(retryAfter) },
    logLevel: logLevel as LogLevel,
    metricsNamespace: env.POWERTOOLS_METRICS_NAMESPACE ?? 'geo-api',
  };
}

let cachedBase: BaseConfig | undefined;
/** The api switch and log settings of this process, parsed on first use. */
export function baseConfig(): BaseConfig {
  cachedBase ??= parseBaseConfig();
  return cachedBase;
}
