import { fromEnv } from '@aws-sdk/credential-provider-env';
import { Signer } from '@aws-sdk/rds-signer';
import pg from 'pg';
import type { Config } from '../config/service.js';
import { InternalError, UpstreamTimeout } from '../errors.js';
import { type FaultCause, StoreError, type StorePhase, storeFaultCause } from './faults.js';

/** The only database surface the reads see: parameterised SELECTs, rows out. */
export interface Db {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
}

/**
 * One pool per process, created at module scope by the caller. No session state is ever set on a
 * connection (RDS Proxy would pin it): the statement timeout travels as a startup parameter, or, behind
 * RDS Proxy (which refuses it there), is set by the proxy itself (DB_SEND_STATEMENT_TIMEOUT=false).
 */
export function createPool(cfg: Config): pg.Pool {
  const common: pg.PoolConfig = {
    max: cfg.DB_POOL_MAX,
    connectionTimeoutMillis: cfg.DB_CONNECT_TIMEOUT_MS,
    ...(cfg.DB_SEND_STATEMENT_TIMEOUT ? { statement_timeout: cfg.DB_STATEMENT_TIMEOUT_MS } : {}),
    // The client gives up slightly after the server would have cancelled the statement itself.
    query_timeout: cfg.DB_STATEMENT_TIMEOUT_MS + 1000,
    idleTimeoutMillis: 60_000,
    keepAlive: true,
    application_name: 'geo-api',
  };
  const pool = cfg.DATABASE_URL
    ? new pg.Pool({ ...common, connectionString: cfg.DATABASE_URL })
    : new pg.Pool({
        ...common,
        host: cfg.DB_HOST,
        port: cfg.DB_PORT,
        database: cfg.DB_NAME,
        user: cfg.DB_USER,
        ssl: cfg.DB_SSL ? { rejectUnauthorized: true } : false,
        password: cfg.DB_IAM_AUTH ? iamToken(cfg) : undefined,
      });
  // An idle client dropped by the server must not crash the process; the next checkout reconnects.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * A fresh IAM token for each new connection (valid 15 minutes, RDS Proxy checks it at login only), made
 * by @aws-sdk/rds-signer with the function role's credentials as Lambda puts them in the environment
 * (the SDK's environment provider, not its whole default chain). Without them the login fails as a
 * configuration fault: 500, the cause in the log.
 */
function iamToken(cfg: Config): () => Promise<string> {
  const signer = new Signer({
    hostname: cfg.DB_HOST as string,
    port: cfg.DB_PORT,
    username: cfg.DB_USER,
    region: cfg.AWS_REGION,
    credentials: fromEnv(),
  });
  return async () => {
    try {
      return await signer.getAuthToken();
    } catch (err) {
      // Our sentence is logged, not the SDK's text: nothing of a credential can ride along.
      const missing = (err as Error).name === 'CredentialsProviderError';
      throw new Error(
        `DB_IAM_AUTH: ${missing ? 'no AWS credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)' : 'the IAM token could not be made'}`,
      );
    }
  };
}

/**
 * The refusal a store failure calls for (docs/errors.md#faults): unavailable → 503 upstream_timeout with the
 * wake delay; configuration → 500 internal_error; a failed statement is left to the caller (a read
 * answers internal_error, the caller statement rate_limit_unavailable). Each carries its cause for the log.
 */
export function storeFailure(err: unknown, phase: StorePhase): Error {
  const cause: FaultCause = storeFaultCause(err, phase);
  if (cause.fault === 'unavailable') return new UpstreamTimeout(cause);
  if (cause.fault === 'configuration') return new InternalError(cause);
  return new StoreError(cause);
}

// A connection that fails while checked out emits 'error' as well as failing its query; without a
// listener that event would end the process. The query's own rejection carries the error.
const ignore = (): void => undefined;

/**
 * Wraps a pool: every statement checks out a connection and runs on it, so a failure is known to come
 * from opening a connection (startup, TLS, login) or from the statement, and is classified accordingly.
 * A call runs two statements in turn (the caller statement, then its read), so the read's connection goes through
 * the same path, and the same classification, as the caller statement's.
 */
export function createDb(pool: pg.Pool): Db {
  return {
    async query<R>(text: string, params: unknown[] = []): Promise<R[]> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw storeFailure(err, 'connect');
      }
      client.on('error', ignore);
      try {
        const result = await client.query(text, params);
        client.removeListener('error', ignore);
        client.release();
        return result.rows as R[];
      } catch (err) {
        client.removeListener('error', ignore);
        // As pool.query does: a connection whose statement failed is closed, not handed to the next call.
        client.release(err as Error);
        throw storeFailure(err, 'query');
      }
    },
  };
}
