import { type Config, config as envConfig } from '../config/service.js';
import { logger } from '../log.js';
import { type BudgetCounter, createBudgetCounter, createDynamoClient } from './budget.js';
import { type Caller, lookupCaller } from './caller.js';
import { createDb, createPool, type Db } from './db.js';
import { createFreeMessageCounter, type FreeMessageCounter } from './free-messages.js';
import { createStamper } from './stamp.js';

/** The long-lived clients of one process: built once at module scope, reused by every call. */
export interface Services {
  config: Config;
  db: Db;
  counter: BudgetCounter;
  /** The per-key bound on MCP messages that spend no budget. */
  free: FreeMessageCounter;
  /** Key, plan and reach; `analysis` is the reference the call names, resolved inside the reach. */
  lookup: (fingerprint: string, analysis?: string) => Promise<Caller>;
  close(): Promise<void>;
}

export function createServices(cfg: Config = envConfig()): Services {
  logger.setLogLevel(cfg.logLevel);
  const pool = createPool(cfg);
  const db = createDb(pool);
  const dynamo = createDynamoClient(cfg);
  const writer = cfg.DB_WRITER_HOST && cfg.LAST_USED_THROTTLE_SECONDS > 0 ? createPool(writerConfig(cfg, cfg.DB_WRITER_HOST)) : undefined;
  const options = {
    lastUsedThrottleSeconds: cfg.LAST_USED_THROTTLE_SECONDS,
    planCeilings: cfg.PLAN_CEILINGS,
    stamp: writer && createStamper(createDb(writer), cfg.LAST_USED_THROTTLE_SECONDS),
  };
  return {
    config: cfg,
    db,
    counter: createBudgetCounter(dynamo, cfg.BUDGET_TABLE),
    free: createFreeMessageCounter(dynamo, cfg.BUDGET_TABLE),
    lookup: (fp, analysis) => lookupCaller(db, fp, options, analysis),
    async close() {
      dynamo.destroy();
      await Promise.all([pool.end(), writer?.end()]);
    },
  };
}

/**
 * The writer pool's configuration: the main pool's (port, database, user, TLS, IAM authentication) on the
 * writer's host, one connection, since it only ever sends the throttled stamp. With DATABASE_URL (local
 * runs), the URL's host is replaced.
 */
export function writerConfig(cfg: Config, host: string): Config {
  let url = cfg.DATABASE_URL;
  if (url !== undefined) {
    const u = new URL(url);
    u.hostname = host;
    url = u.toString();
  }
  return { ...cfg, DATABASE_URL: url, DB_HOST: host, DB_POOL_MAX: 1 };
}
