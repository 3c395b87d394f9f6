import { describe, expect, it } from '@jest/globals';
import { importStage, PROD, type Resources, resources, synth } from './support.js';

type Json = Record<string, unknown>;
type Resource = Resources[string] & { DeletionPolicy?: string };

/**
 * Every log the stages write lands in a group the template creates with a retention: function logs
 * (each function names its group, or the group it would create by name exists beforehand), the rotation
 * function's (a Serverless Application Repository app: its group is created by name), the PostgreSQL
 * export, flow logs and access logs. A group with a fixed name is deleted with the stack, or a destroyed
 * stage could not be deployed again ("already exists").
 */
function check(all: Record<string, Resource>): string[] {
  const problems: string[] = [];
  const groups = Object.entries(all).filter(([, r]) => r.Type === 'AWS::Logs::LogGroup');
  const named = new Map(
    groups.filter(([, r]) => typeof r.Properties?.LogGroupName === 'string').map(([id, r]) => [r.Properties!.LogGroupName as string, id]),
  );
  for (const [id, r] of groups) {
    if (typeof r.Properties?.RetentionInDays !== 'number') problems.push(`${id}: no retention`);
    if (r.Properties?.LogGroupName !== undefined && r.DeletionPolicy !== 'Delete')
      problems.push(`${id}: fixed name ${String(r.Properties.LogGroupName)} kept on delete`);
  }
  const isGroup = (ref: unknown) => {
    const id = (ref as Json | undefined)?.Ref as string | undefined;
    return id !== undefined && all[id]?.Type === 'AWS::Logs::LogGroup';
  };
  for (const [id, r] of Object.entries(all)) {
    if (r.Type === 'AWS::Lambda::Function') {
      const own = (r.Properties?.LoggingConfig as Json | undefined)?.LogGroup;
      const name = r.Properties?.FunctionName;
      if (!isGroup(own) && !(typeof name === 'string' && named.has(`/aws/lambda/${name}`)))
        problems.push(`${id}: function without a log group of the template`);
    }
    if (r.Type === 'AWS::Serverless::Application') {
      const fn = (r.Properties?.Parameters as Json | undefined)?.functionName;
      if (typeof fn !== 'string' || !named.has(`/aws/lambda/${fn}`))
        problems.push(`${id}: its function ${String(fn)} has no log group of the template`);
      else if (!((r as Json).DependsOn as string[] | undefined)?.includes(named.get(`/aws/lambda/${fn}`)!))
        problems.push(`${id}: created before its log group`);
    }
    if (r.Type === 'AWS::RDS::DBCluster') {
      for (const kind of (r.Properties?.EnableCloudwatchLogsExports as string[] | undefined) ?? []) {
        const name = `/aws/rds/cluster/${String(r.Properties!.DBClusterIdentifier)}/${kind}`;
        if (!named.has(name)) problems.push(`${id}: exports ${kind} logs to ${name}, which the template does not create`);
      }
    }
  }
  return problems;
}

describe('log groups', () => {
  it.each([
    ['dev', {}],
    ['prod', PROD],
    ['import', { stages: { dev: importStage } }],
  ])('%s: every group has a retention, every function and export writes to one, no fixed name survives a destroy', (_name, context) => {
    const s = synth(context, { account: '111111111111', region: 'eu-west-1' });
    for (const t of [s.statefulTemplate, s.statelessTemplate]) {
      expect(check(t.toJSON().Resources as Record<string, Resource>)).toEqual([]);
    }
  });

  it('retention follows logRetentionDays', () => {
    const s = synth({ stages: { dev: { logRetentionDays: 60 } } }, { account: '111111111111', region: 'eu-west-1' });
    const all = [
      ...Object.values(resources(s.statefulTemplate, 'AWS::Logs::LogGroup')),
      ...Object.values(resources(s.statelessTemplate, 'AWS::Logs::LogGroup')),
    ];
    expect(all.length).toBeGreaterThanOrEqual(11);
    for (const g of all) expect(g.Properties!.RetentionInDays).toBe(60);
  });

  it('the check reports what the first version of the templates got wrong', () => {
    const before: Record<string, Resource> = {
      PostgresLogs: {
        Type: 'AWS::Logs::LogGroup',
        Properties: { LogGroupName: '/aws/rds/cluster/geo-measurement-dev/postgresql', RetentionInDays: 14 },
        DeletionPolicy: 'Retain',
      },
      Cluster: {
        Type: 'AWS::RDS::DBCluster',
        Properties: { DBClusterIdentifier: 'geo-measurement-dev', EnableCloudwatchLogsExports: ['postgresql'] },
      },
      Rotation: { Type: 'AWS::Serverless::Application', Properties: { Parameters: { functionName: 'GeoApidevRotation' } } },
      Handler: { Type: 'AWS::Lambda::Function', Properties: {} },
    };
    expect(check(before)).toEqual([
      'PostgresLogs: fixed name /aws/rds/cluster/geo-measurement-dev/postgresql kept on delete',
      'Rotation: its function GeoApidevRotation has no log group of the template',
      'Handler: function without a log group of the template',
    ]);
  });
});
