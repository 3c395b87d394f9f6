import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { importStage, PROD, synth } from './support.js';

/**
 * CloudFormation's own linter on the templates of every stage and option: no error-level finding.
 * cfn-lint is a Python tool, not a dependency of this repository: where it is not installed, these tests
 * are skipped and say so (CI lints the deployed assembly with scripts/cfn-lint.sh either way).
 */
const version = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
const installed = version.status === 0;
const itLint = installed ? it : it.skip;
if (!installed) process.stderr.write('test/infra/cfn-lint.test.ts: cfn-lint is not installed here; skipped (pip install cfn-lint)\n');

const ENV = { account: '111111111111', region: 'eu-west-1' };
const VARIANTS: Record<string, Record<string, unknown>> = {
  dev: {},
  prod: PROD,
  'prod + edge': { ...PROD, stages: { prod: { database: { mode: 'create', readers: 2 }, edge: { enabled: true } } } },
  'dev + bastion + domain': {
    stages: {
      dev: { bastion: true, domain: { name: 'api.acme-corp.com', certificateArn: 'arn:aws:acm:eu-west-1:111111111111:certificate/abc' } },
    },
  },
  'import + bastion': { stages: { dev: { ...importStage, bastion: true } } },
};

interface Finding {
  Rule: { Id: string };
  Level: string;
  Filename: string;
  Message: string;
}

function lint(files: string[]): Finding[] {
  const run = spawnSync('cfn-lint', ['--format', 'json', '--', ...files], { encoding: 'utf8', maxBuffer: 64 << 20 });
  // Exit status: a bit mask, 2 errors, 4 warnings, 8 informational; 1 is a failure of cfn-lint itself.
  if (run.status === null || run.status & 1) throw new Error(`cfn-lint failed (${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout || '[]') as Finding[];
}

describe('cfn-lint: every stage synthesizes templates with no error-level finding', () => {
  const templates: Record<string, string[]> = {};
  beforeAll(() => {
    if (!installed) return;
    for (const [name, context] of Object.entries(VARIANTS)) {
      const assembly = synth(context, ENV).app.synth();
      templates[name] = assembly.stacks.map((s) => s.templateFullPath);
    }
  }, 240_000);

  itLint(
    'dev, prod (readers), prod with the edge, bastion and custom domain, import mode: 0 errors',
    () => {
      const files = Object.values(templates).flat();
      expect(files.length).toBe(11);
      const findings = lint(files);
      const errors = findings.filter((f) => f.Level === 'Error').map((f) => `${f.Rule.Id} ${f.Filename}: ${f.Message}`);
      expect(errors).toEqual([]);
      // What is left are warnings on DependsOn entries aws-cdk-lib writes itself (docs/operating.md#cloudformations-linter).
      expect([...new Set(findings.map((f) => f.Rule.Id))].sort()).toEqual(['W3005']);
    },
    240_000,
  );

  itLint(
    'the linter still sees the findings these constructs avoid, were they back (so a pass above means something)',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'geo-cfn-lint-'));
      const [stateful, stateless] = templates.dev!.map((f) => JSON.parse(readFileSync(f, 'utf8')));
      // Tags on the proxy target group, as CDK's tagging would write them.
      const targetGroup = Object.values(stateful.Resources as Record<string, any>).find((r) => r.Type === 'AWS::RDS::DBProxyTargetGroup');
      targetGroup.Properties.Tags = [{ Key: 'stage', Value: 'dev' }];
      // The proxy ARN split in the consumer stack, as proxy.grantConnect() would write it across stacks.
      const policy = Object.values(stateless.Resources as Record<string, any>).find(
        (r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r).includes('rds-db:connect'),
      );
      const connect = policy.Properties.PolicyDocument.Statement.find((s: { Action: string }) => s.Action === 'rds-db:connect');
      const getStackOutput = connect.Resource['Fn::Join'][1][1];
      connect.Resource['Fn::Join'][1][1] = { 'Fn::Select': [6, { 'Fn::Split': [':', getStackOutput] }] };
      writeFileSync(join(dir, 'stateful.template.json'), JSON.stringify(stateful));
      writeFileSync(join(dir, 'stateless.template.json'), JSON.stringify(stateless));
      const errors = lint([join(dir, 'stateful.template.json'), join(dir, 'stateless.template.json')]).filter((f) => f.Level === 'Error');
      expect(errors.map((f) => f.Rule.Id).sort()).toEqual(['E1022', 'E3002']);
    },
    120_000,
  );

  itLint('subnets and the bastion, whose zones are fixed at synth on purpose, tell cfn-lint so (W3010) in their metadata', () => {
    const [stateful] = templates['dev + bastion + domain']!.map((f) => JSON.parse(readFileSync(f, 'utf8')));
    const pinned = Object.values(stateful.Resources as Record<string, any>).filter(
      (r) => (r.Type === 'AWS::EC2::Subnet' || r.Type === 'AWS::EC2::Instance') && typeof r.Properties.AvailabilityZone === 'string',
    );
    expect(pinned.length).toBe(3);
    for (const r of pinned) expect(r.Metadata['cfn-lint']).toEqual({ config: { ignore_checks: ['W3010'] } });
  });
});
