import { describe, expect, it } from '@jest/globals';
import { parseConfig } from '#shared/config/service.js';
import { createPool } from '#shared/store/db.js';
import { CALL_MARGIN_MS, CLIENT_STATEMENT_GRACE_MS, loadStageConfig, worstCallMs } from '../../lib/config.js';
import { ALARM_ADDRESS, cdkJsonContext } from './support.js';

const ctx = (values: Record<string, unknown>) => ({ tryGetContext: (k: string) => values[k] });

describe('stage configuration from context', () => {
  it('parses every stage of cdk.json, given a real alarm address where the file holds a placeholder', () => {
    for (const stage of Object.keys(cdkJsonContext.stages as object)) {
      expect(loadStageConfig(ctx({ ...cdkJsonContext, stage, alarmEmail: ALARM_ADDRESS })).stageName).toBe(stage);
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

  it('defaults: 2 connections + caller statement + budget call + data statement + margin, by hand', () => {
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

describe('alarm address: a stage that sends its alarms somewhere names a mailbox someone reads', () => {
  const load = (alarmEmail: unknown, extra: Record<string, unknown> = {}) =>
    loadStageConfig(ctx({ stage: 'x', stages: { x: { alarmEmail } }, ...extra }));

  it('cdk.json prod as committed does not synthesize: its address is a placeholder, and the message says what to do', () => {
    expect(() => loadStageConfig(ctx({ ...cdkJsonContext, stage: 'prod' }))).toThrow(
      'invalid configuration for stage "prod": alarmEmail: oncall@example.com is a placeholder (example.com is reserved for examples and tests and receives no mail): alarms sent there reach nobody. Name a real address (cdk.json stages.prod.alarmEmail, or -c alarmEmail=...)',
    );
  });

  it.each([
    ['oncall@example.com'],
    ['alerts@mail.example.org'],
    ['ops@example.net'],
    ['ops@acme.test'],
    ['ops@corp.example'],
    ['ops@nowhere.invalid'],
    ['ops@host.localhost'],
    ['changeme@acme-corp.com'],
    ['CHANGE-ME@acme-corp.com'],
    ['your-email@acme-corp.com'],
    ['placeholder@acme-corp.com'],
    ['todo@acme-corp.com'],
    ['noreply@acme-corp.com'],
  ])('refuses the placeholder %s', (address) => {
    expect(() => load(address)).toThrow(/alarmEmail: .* is a placeholder \(.+\): alarms sent there reach nobody/);
  });

  it('refuses an empty or malformed address with its own message', () => {
    expect(() => load('')).toThrow(/alarmEmail: empty: name the address that receives this stage's alarms, or remove the key/);
    expect(() => load('   ')).toThrow(/alarmEmail: empty/);
    expect(() => load('oncall')).toThrow(/alarmEmail: "oncall" is not an e-mail address/);
    expect(() => load(' ops@acme-corp.com')).toThrow(/is not an e-mail address/);
  });

  it('accepts real addresses, including ones that merely contain a reserved word', () => {
    for (const address of ['oncall@acme-corp.com', 'ops@myexample.com', 'alerts@example.com.au', 'sre+geo@testing.io', 'team@acme.dev']) {
      expect(load(address).alarmEmail).toBe(address);
    }
    expect(loadStageConfig(ctx({ stage: 'x', stages: { x: {} } })).alarmEmail).toBeUndefined();
  });

  it('-c alarmEmail=... sets the address and is checked the same way', () => {
    expect(load('oncall@example.com', { alarmEmail: 'oncall@acme-corp.com' }).alarmEmail).toBe('oncall@acme-corp.com');
    expect(() => load(undefined, { alarmEmail: 'changeme@acme-corp.com' })).toThrow(/placeholder/);
  });
});
