import { describe, expect, it } from '@jest/globals';
import { loadStageConfig } from '../../lib/config.js';
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
    expect(() => loadStageConfig(ctx({ stage: 'x', stages: { x: { timeouts: { dbConnectMs: 25_000 } } } }))).toThrow(/lambdaSeconds/);
    expect(() => loadStageConfig(ctx({ stage: 'x', stages: { x: { timeouts: { lambdaSeconds: 29 } } } }))).toThrow(/integrationSeconds/);
    expect(() => loadStageConfig(ctx({ stage: 'x', stages: { x: { logRetentionDays: 42 } } }))).toThrow(/logRetentionDays/);
  });
});
