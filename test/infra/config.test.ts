import { describe, expect, it } from '@jest/globals';
import { parseConfig } from '#shared/config/service.js';
import { createPool } from '#shared/store/db.js';
import { CALL_MARGIN_MS, CLIENT_STATEMENT_GRACE_MS, loadStageConfig, worstCallMs } from '../../lib/config.js';
import { cdkJsonContext } from './support.js';

const ctx = (values: Record<string, unknown>) => ({ tryGetContext: (k: string) => values[k] });

describe('stage configuration from context', () => {
  it('parses every stage of cdk.json', () => {
    for (const stage of Object.keys(cdkJsonContext.stages as object)) {
      expect(loadStageConfig(ctx({ ...cdkJsonContext, stage })).stageName).toBe(stage);
    }
  });

  it('applies defaults: Aurora may pause at 0 ACU, API on', () => {
    const c = loadStageConfig(ctx({ stage: 'x', stages: { x: {} } }));
    expect(c.database).toMatchObject({ mode: 'create', minCapacity: 0 });
    expect(c.api.enabled).toBe(true);
    expect(c.timeouts.integrationSeconds).toBeLessThanOrEqual(30);
  });

  it('-c apiEnabled=false overrides the stage', () => {
    expect(loadStageConfig(ctx({ stage: 'x', stages: { x: {} }, apiEnabled: 'false' })).api.enabled).toBe(false);
  });

  it('refuses unknown keys, unknown stages and timeouts that would let API Gateway answer first', () => {
    expect(() => loadStageConfig(ctx({ stage: 'x', stages: { x: { apiEnabeld: true } } }))).toThrow(/invalid configuration/);
    expect(() => loadStageConfig(ctx({ stage: 'nope', stages: {} }))).toThrow(/no configuration/);
    expect(() => loadStageConfig(ctx({ stage: 'x', stages: { x: { timeouts: { dbConnectMs: 25_000 } } } }))).toThrow(
      /must fit in lambdaSeconds/,
    );
    expect(() => loadStageConfig(ctx({ stage: 'x', stages: { x: { timeouts: { lambdaSeconds: 29 } } } }))).toThrow(/integrationSeconds/);
    expect(() => loadStageConfig(ctx({ stage: 'x', stages: { x: { logRetentionDays: 42 } } }))).toThrow(/logRetentionDays/);
  });
});

describe('timeout budget: the worst path of one call fits the Lambda timeout, which stays below the integration timeout', () => {
  const load = (timeouts: Record<string, number>) => loadStageConfig(ctx({ stage: 'x', stages: { x: { timeouts } } })).timeouts;

  it('defaults: 2 connections + identity statement + budget call + data statement + margin, by hand', () => {
    const t = load({});
    expect(t).toEqual({ integrationSeconds: 29, lambdaSeconds: 27, dbConnectMs: 6000, dbStatementMs: 4000, budgetMs: 1000 });
    // 2 x 6000 + (4000 + 1000) + 1000 + (4000 + 1000) + 2000 = 25000 ms <= 27000 ms < 29000 ms
    expect(worstCallMs(t).total).toBe(25_000);
    expect(worstCallMs(t).terms).toEqual({
      connections: 12_000,
      identityStatement: 5_000,
      budgetCall: 1_000,
      dataStatement: 5_000,
      margin: 2_000,
    });
  });

  it('refuses the old defaults: one connection of 12 s was counted, but two may be needed (37 s > 27 s)', () => {
    expect(() => load({ dbConnectMs: 12_000, dbStatementMs: 6_000 })).toThrow(
      'timeouts: the worst call (connections 24000 + identityStatement 7000 + budgetCall 1000 + dataStatement 7000 + margin 2000 = 41000 ms) must fit in lambdaSeconds (27000 ms)',
    );
  });

  it('accepts the exact fit and refuses one millisecond more', () => {
    // 2c + 2(s + 1000) + b + 2000 = 27000 with s = 4000, b = 1000 -> c = 7000.
    expect(worstCallMs(load({ dbConnectMs: 7000 })).total).toBe(27_000);
    expect(() => load({ dbConnectMs: 7001 })).toThrow(/27002 ms\) must fit in lambdaSeconds \(27000 ms\)/);
    expect(() => load({ lambdaSeconds: 29 })).toThrow(/lambdaSeconds \(29\) must be below integrationSeconds \(29\)/);
    expect(() => load({ integrationSeconds: 31 })).toThrow(/integrationSeconds/);
  });

  it("the grace counted per statement is the pool's own: query_timeout = statement timeout + grace (shared/store/db.ts)", async () => {
    const cfg = parseConfig({
      DB_HOST: 'proxy.example',
      DB_STATEMENT_TIMEOUT_MS: '4000',
      DB_SEND_STATEMENT_TIMEOUT: 'false',
      CURSOR_SECRET: 'x'.repeat(32),
    });
    const pool = createPool(cfg);
    try {
      const options = (pool as unknown as { options: Record<string, unknown> }).options;
      expect(options.query_timeout).toBe(4000 + CLIENT_STATEMENT_GRACE_MS);
      expect(options.connectionTimeoutMillis).toBe(cfg.DB_CONNECT_TIMEOUT_MS);
      // Behind RDS Proxy the statement timeout is not sent in the startup packet (the proxy sets it).
      expect(options.statement_timeout).toBeUndefined();
    } finally {
      await pool.end();
    }
    expect(CALL_MARGIN_MS).toBe(2000);
  });
});
