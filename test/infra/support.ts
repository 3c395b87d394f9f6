import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { reads } from '#shared/reads/registry.js';
import { PROJECT_ROOT } from '../../lib/constructs/service-function.js';
import { buildService, type Service } from '../../lib/service.js';

/** The context of cdk.json, so tests exercise the stage configurations that are really deployed. */
export const cdkJsonContext = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> })
  .context;

export interface Synthesized extends Service {
  app: App;
  statefulTemplate: Template;
  statelessTemplate: Template;
}

/**
 * Builds the service as bin/app.ts does, with `bundle=false` so no esbuild runs, into a temporary
 * cloud assembly directory. `context` is merged over cdk.json's.
 */
export function synth(context: Record<string, unknown> = {}, env: { account?: string; region?: string } = {}): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'geo-cdk-test-'));
  const app = new App({ outdir, context: { ...cdkJsonContext, bundle: 'false', ...context } });
  const saved = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
  try {
    if (env.account) process.env.CDK_DEFAULT_ACCOUNT = env.account;
    if (env.region) process.env.CDK_DEFAULT_REGION = env.region;
    const service = buildService(app, reads);
    return {
      ...service,
      app,
      statefulTemplate: Template.fromStack(service.stateful),
      statelessTemplate: Template.fromStack(service.stateless),
    };
  } finally {
    restore('CDK_DEFAULT_ACCOUNT', saved.account);
    restore('CDK_DEFAULT_REGION', saved.region);
  }
}

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

export type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

export function resources(template: Template, type?: string): Resources {
  const all = template.toJSON().Resources as Resources;
  return type ? Object.fromEntries(Object.entries(all).filter(([, r]) => r.Type === type)) : all;
}

/**
 * cdk.json's prod stage carries a placeholder alarm address, which refuses to synthesize until an operator
 * names a real one (lib/config.ts); tests give one the way a pipeline would, `-c alarmEmail=...`.
 */
export const ALARM_ADDRESS = 'geo-oncall@measurement-ops.net';
export const PROD = { stage: 'prod', alarmEmail: ALARM_ADDRESS };

/** A stage configuration for a team whose measurement store already exists. */
export const importStage = {
  database: {
    mode: 'import',
    vpc: {
      vpcId: 'vpc-0123456789abcdef0',
      vpcCidr: '10.1.0.0/16',
      availabilityZones: ['eu-west-1a', 'eu-west-1b'],
      subnetIds: ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb'],
      routeTableIds: ['rtb-0aaaaaaaaaaaaaaaa', 'rtb-0bbbbbbbbbbbbbbbb'],
    },
    cluster: {
      clusterIdentifier: 'existing-measurements',
      clusterResourceIdentifier: 'cluster-ABCDEFGHIJKLMNOPQRSTUVWXY',
      endpoint: 'existing-measurements.cluster-abc123.eu-west-1.rds.amazonaws.com',
      securityGroupId: 'sg-0123456789abcdef0',
      adminSecretArn: 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:existing-admin-AbCdEf',
    },
  },
};

/** The fifteen read paths of docs/contract.md#the-fifteen-reads, relative to /api/v1. */
export const CONTRACT_PATHS = [
  '/me',
  '/analyses',
  '/analyses/{analysis}',
  '/analyses/{analysis}/metrics',
  '/analyses/{analysis}/metrics/timeseries',
  '/analyses/{analysis}/engines',
  '/analyses/{analysis}/competitors',
  '/analyses/{analysis}/sources',
  '/analyses/{analysis}/groups',
  '/analyses/{analysis}/groups/{group}/prompts',
  '/analyses/{analysis}/prompts',
  '/analyses/{analysis}/runs',
  '/analyses/{analysis}/runs/{run}',
  '/analyses/{analysis}/answers',
  '/analyses/{analysis}/answers/{answer}',
];
