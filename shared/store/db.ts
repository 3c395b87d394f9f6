import { types } from 'node:util';
import pg from 'pg';
import { Signer } from '@aws-sdk/rds-signer';
import type { Config } from '../config.js';
import { UpstreamTimeout } from '../errors.js';

/** The only database surface the reads see: parameterised SELECTs, rows out. */
export interface Db {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
}

// 08: connection exception; 57014: statement_timeout fired; 57P01-57P03: the server is going away or starting.
const UNREACHABLE_SQLSTATES = /^(08|57014|57P0[123])/;
const UNREACHABLE_MESSAGES = /timeout|terminated|ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENOTFOUND|ETIMEDOUT|EPIPE|Connection ended|not queryable/i;

/** True when the store did not answer (asleep, waking, unreachable, too slow), as opposed to a bad query. */
export function isUnreachable(err: unknown): boolean {
  // isNativeError also recognises errors made in another realm: socket errors (ECONNREFUSED...) come
  // from Node's core, which is another realm than the code when it runs inside a vm (jest), and
  // `instanceof Error` alone turned a refused connection into 503 rate_limit_unavailable there.
  if (!(err instanceof Error || types.isNativeError(err))) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && UNREACHABLE_SQLSTATES.test(code)) return true;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true;
  return UNREACHABLE_MESSAGES.test(err.message);
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

function iamToken(cfg: Config): () => Promise<string> {
  const signer = new Signer({ hostname: cfg.DB_HOST as string, port: cfg.DB_PORT, username: cfg.DB_USER, region: cfg.AWS_REGION });
  return () => signer.getAuthToken();
}

/** Wraps a pool so that a store that does not answer surfaces as 503 upstream_timeout. */
export function createDb(pool: pg.Pool): Db {
  return {
    async query<R>(text: string, params: unknown[] = []): Promise<R[]> {
      try {
        const result = await pool.query(text, params);
        return result.rows as R[];
      } catch (err) {
        if (isUnreachable(err)) throw new UpstreamTimeout();
        throw err;
      }
    },
  };
}
