import { type App, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { ReadDef } from '#shared/reads/types.js';
import { loadStageConfig, type StageConfig, shouldBundle } from './config.js';
import { EDGE_REGION, EdgeStack } from './edge-stack.js';
import { StatefulStack } from './stateful-stack.js';
import { StatelessStack } from './stateless-stack.js';

export interface Service {
  config: StageConfig;
  stateful: StatefulStack;
  stateless: StatelessStack;
  /** The us-east-1 stack of the edge's web ACL, when `edge.enabled`. */
  edge?: EdgeStack;
}

/** Builds both stacks of one stage from context; shared by bin/app.ts and the infra tests. */
export function buildService(app: App, reads: ReadonlyArray<Pick<ReadDef, 'name' | 'family' | 'path'>>): Service {
  const config = loadStageConfig(app.node);
  const bundle = shouldBundle(app.node);
  const env = {
    account: config.account ?? process.env.CDK_DEFAULT_ACCOUNT,
    region: config.region ?? process.env.CDK_DEFAULT_REGION,
  };
  const prefix = `GeoApi-${config.stageName}`;

  const stateful = new StatefulStack(app, `${prefix}-stateful`, {
    env,
    config,
    bundle,
    description: `Measurement API (${config.stageName}): network, measurement store, budget table, secrets`,
    terminationProtection: config.database.mode === 'create' && config.database.deletionProtection,
  });
  let edge: EdgeStack | undefined;
  if (config.edge.enabled) {
    // The stateless stack reads the web ACL's ARN from us-east-1; CloudFormation can do that only
    // between stacks whose regions are both known at synth.
    if (!env.region) {
      throw new Error(
        `stage "${config.stageName}": edge.enabled needs the stage's region at synth (region in cdk.json, or CDK_DEFAULT_REGION from the CLI's profile)`,
      );
    }
    edge = new EdgeStack(app, `${prefix}-edge`, {
      env: { ...env, region: EDGE_REGION },
      config,
      description: `Measurement API (${config.stageName}): WAF web ACL of the CloudFront edge (us-east-1)`,
    });
  }
  const stateless = new StatelessStack(app, `${prefix}-stateless`, {
    env,
    config,
    stateful,
    edge,
    reads,
    bundle,
    description: `Measurement API (${config.stageName}): HTTP API, functions, alarms${edge ? ', CloudFront edge' : ''}`,
  });

  Tags.of(app).add('service', 'geo-measurement-api');
  Tags.of(app).add('stage', config.stageName);
  // Any finding not fixed or acknowledged (Validations.of(...).acknowledge) fails the synth.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { config, stateful, stateless, ...(edge ? { edge } : {}) };
}
