import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Template } from 'aws-cdk-lib/assertions';
import { resources, synth } from './support.js';

interface Statement {
  Action: string | string[];
  Resource: unknown;
  Effect: string;
}
const list = <T>(v: T | T[]) => (Array.isArray(v) ? v : [v]);

function policiesByRole(t: Template): Map<string, Statement[]> {
  const out = new Map<string, Statement[]>();
  for (const p of Object.values(resources(t, 'AWS::IAM::Policy'))) {
    const statements = (p.Properties!.PolicyDocument as { Statement: Statement[] }).Statement;
    for (const role of p.Properties!.Roles as Array<{ Ref: string }>) out.set(role.Ref, [...(out.get(role.Ref) ?? []), ...statements]);
  }
  return out;
}

const DATA_SERVICES = /^(dynamodb|rds-db|rds-data|secretsmanager|kms|s3):/;
/** What active tracing adds to every function's role (test/infra/tracing.test.ts). */
const XRAY = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];

describe('IAM: least privilege', () => {
  let stateful: Template;
  let stateless: Template;
  beforeAll(() => {
    const s = synth({}, { account: '111111111111', region: 'eu-west-1' });
    stateful = s.statefulTemplate;
    stateless = s.statelessTemplate;
  });

  it('no statement grants a wildcard action, and data actions never target every resource', () => {
    for (const t of [stateful, stateless]) {
      for (const statements of policiesByRole(t).values()) {
        for (const st of statements) {
          for (const action of list(st.Action)) {
            expect(action).not.toBe('*');
            expect(action).not.toMatch(/:\*$/);
            if (DATA_SERVICES.test(action)) expect(list(st.Resource)).not.toContain('*');
          }
        }
      }
    }
  });

  it('each read and MCP function may only connect as geo_reader through the proxy and bump the budget', () => {
    const fns = resources(stateless, 'AWS::Lambda::Function');
    const byRole = policiesByRole(stateless);
    for (const [id, fn] of Object.entries(fns)) {
      const roleRef = (fn.Properties!.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
      const actions = (byRole.get(roleRef) ?? []).flatMap((s) => list(s.Action)).sort();
      if (id.startsWith('OpenapiFn')) {
        expect(actions).toEqual(XRAY);
        continue;
      }
      expect(actions).toEqual(['dynamodb:UpdateItem', 'rds-db:connect', ...XRAY]);
      const connect = byRole.get(roleRef)!.find((s) => s.Action === 'rds-db:connect')!;
      expect(JSON.stringify(connect.Resource)).toMatch(/dbuser:.*\/geo_reader/);
    }
  });

  it('the migration runner reads the admin secret and nothing else', () => {
    const fns = Object.entries(resources(stateful, 'AWS::Lambda::Function')).filter(([id]) => id.startsWith('MigrationRunnerMigrate'));
    const roleRef = (fns[0]![1].Properties!.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    const statements = policiesByRole(stateful).get(roleRef)!;
    expect(statements.flatMap((s) => list(s.Action)).sort()).toEqual([
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
      ...XRAY,
    ]);
    expect(JSON.stringify(statements.map((s) => s.Resource))).toContain('StoreClusterSecretAttachment');
  });
});
