import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { logger } from '#shared/log.js';
import { reads, readsByFamily } from '#shared/reads/registry.js';
import { restHandler } from '#shared/rest/handler.js';
import { createServices } from '#shared/store/services.js';
import { PROJECT_ROOT } from '../../lib/constructs/service-function.js';
import { buildService, type Service } from '../../lib/service.js';
import { type LambdaHandler, toApiGatewayEvent } from '../../local/adapter.js';
import { localConfig } from '../../local/stack.js';
import { captureLogLines } from '../support/capture.js';
import { SYNTH_CACHE_ENV } from '../support/synth-cache.js';

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
 *
 * Within a jest run each context is synthesized once: the first file to ask for it keeps its two
 * templates in the run's directory (SYNTH_CACHE_ENV, made by the global setup), and the files after it
 * assert on those. The constructs themselves (app, stacks, config) are built again only by a file that
 * reads them. A context that fails to synthesize is never kept, so it fails in every file that asks.
 */
export function synth(context: Record<string, unknown> = {}, env: { account?: string; region?: string } = {}): Synthesized {
  const dir = process.env[SYNTH_CACHE_ENV];
  const file =
    dir &&
    join(
      dir,
      `${createHash('sha256')
        .update(JSON.stringify([context, env.account, env.region]))
        .digest('hex')}.json`,
    );
  if (file && existsSync(file)) return kept(JSON.parse(readFileSync(file, 'utf8')) as KeptTemplates, () => build(context, env));
  const synthesized = withEnv(env, () => {
    const built = build(context, env);
    return {
      ...built.service,
      app: built.app,
      statefulTemplate: Template.fromStack(built.service.stateful),
      statelessTemplate: Template.fromStack(built.service.stateless),
    };
  });
  if (file) {
    const temporary = `${file}.${process.pid}`;
    const templates: KeptTemplates = { stateful: synthesized.statefulTemplate.toJSON(), stateless: synthesized.statelessTemplate.toJSON() };
    writeFileSync(temporary, JSON.stringify(templates));
    renameSync(temporary, file);
  }
  return synthesized;
}

interface KeptTemplates {
  stateful: Record<string, unknown>;
  stateless: Record<string, unknown>;
}

/** The kept templates, and the constructs built on first use. */
function kept(templates: KeptTemplates, rebuild: () => { app: App; service: Service }): Synthesized {
  let built: { app: App; service: Service } | undefined;
  const construct = () => {
    built ??= rebuild();
    return built;
  };
  return Object.defineProperties(
    {
      statefulTemplate: Template.fromJSON(templates.stateful),
      statelessTemplate: Template.fromJSON(templates.stateless),
    },
    {
      app: { get: () => construct().app, enumerable: true },
      config: { get: () => construct().service.config, enumerable: true },
      stateful: { get: () => construct().service.stateful, enumerable: true },
      stateless: { get: () => construct().service.stateless, enumerable: true },
      edge: { get: () => construct().service.edge, enumerable: true },
    },
  ) as Synthesized;
}

function build(context: Record<string, unknown>, env: { account?: string; region?: string }): { app: App; service: Service } {
  const outdir = mkdtempSync(join(tmpdir(), 'geo-cdk-test-'));
  const app = new App({ outdir, context: { ...cdkJsonContext, bundle: 'false', ...context } });
  return withEnv(env, () => ({ app, service: buildService(app, reads) }));
}

/** `work` with the CDK's default account and region set as `env` gives them, restored after. */
function withEnv<T>(env: { account?: string; region?: string }, work: () => T): T {
  const saved = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
  try {
    if (env.account) process.env.CDK_DEFAULT_ACCOUNT = env.account;
    if (env.region) process.env.CDK_DEFAULT_REGION = env.region;
    return work();
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

/**
 * A real GET /me whose store is unreachable (nothing listens on port 1), at LOG_LEVEL INFO as deployed, so
 * the function writes every line a deployed fault writes (the request line, its EMF line, the fault line):
 * the reply and those lines, for the metric filters and dashboard widgets that read them.
 */
export async function unreachableStoreCall(
  requestId: string,
): Promise<{ reply: APIGatewayProxyStructuredResultV2; lines: Array<Record<string, any>> }> {
  const services = createServices(
    localConfig('postgres://geo_reader@127.0.0.1:1/none', 'http://127.0.0.1:1', { LOG_LEVEL: 'INFO', DB_CONNECT_TIMEOUT_MS: '1000' }),
  );
  try {
    const { event } = toApiGatewayEvent({
      method: 'GET',
      url: '/api/v1/me',
      rawHeaders: ['authorization', `Bearer geo_live_${'a'.repeat(40)}`],
      body: '',
    });
    const handler = restHandler(readsByFamily.identity, services) as unknown as LambdaHandler;
    let reply: APIGatewayProxyStructuredResultV2 | undefined;
    const lines = await captureLogLines(async () => {
      reply = await handler(event, { awsRequestId: requestId } as unknown as Context);
    });
    if (!reply) throw new Error('the handler answered nothing');
    return { reply, lines };
  } finally {
    await services.close();
    // createServices set the process-wide logger to INFO; the other tests run quiet.
    logger.setLogLevel((process.env.LOG_LEVEL ?? 'SILENT') as 'SILENT');
  }
}
