import { type Config, config as envConfig } from '../config/service.js';
import { logger } from '../log.js';
import { type BudgetCounter, createBudgetCounter, createDynamoClient } from './budget.js';
import { type Caller, lookupCaller } from './caller.js';
import { createDb, createPool, type Db } from './db.js';

/** The long-lived clients of one process: built once at module scope, reused by every call. */
export interface Services {
  config: Config;
  db: Db;
  counter: BudgetCounter;
  lookup: (fingerprint: string) => Promise<Caller>;
  close(): Promise<void>;
}

export function createServices(cfg: Config = envConfig()): Services {
  logger.setLogLevel(cfg.logLevel);
  const pool = createPool(cfg);
  const db = createDb(pool);
  const dynamo = createDynamoClient(cfg);
  const options = { lastUsedThrottleSeconds: cfg.LAST_USED_THROTTLE_SECONDS, planCeilings: cfg.PLAN_CEILINGS };
  return {
    config: cfg,
    db,
    counter: createBudgetCounter(dynamo, cfg.BUDGET_TABLE),
    lookup: (fp) => lookupCaller(db, fp, options),
    async close() {
      dynamo.destroy();
      await pool.end();
    },
  };
}
