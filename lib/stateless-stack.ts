import { CfnOutput, Duration, SecretValue, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ReadDef } from '#shared/reads/types.js';
import { FAMILIES } from '#shared/reads/types.js';
import { REFERENCE_FILE } from '#shared/rest/reference-page.js';
import type { StageConfig } from './config.js';
import { EdgeDistribution } from './constructs/edge-distribution.js';
import { READER_DB_USER } from './constructs/measurement-store.js';
import { ReadApi, type RouteTarget } from './constructs/read-api.js';
import { ServiceAlarms } from './constructs/service-alarms.js';
import { ServiceDashboard } from './constructs/service-dashboard.js';
import { ServiceFunction } from './constructs/service-function.js';
import type { EdgeStack } from './edge-stack.js';
import type { StatefulStack } from './stateful-stack.js';

export interface StatelessStackProps extends StackProps {
  config: StageConfig;
  stateful: StatefulStack;
  /** Present when the stage puts CloudFront and WAF in front of the API (`edge.enabled`). */
  edge?: EdgeStack | undefined;
  reads: ReadonlyArray<Pick<ReadDef, 'name' | 'family' | 'path'>>;
  bundle: boolean;
}

/**
 * The API and its functions. Holds no data, so it can be redeployed (or torn down) at will; flipping
 * the api switch redeploys only this stack, changing nothing but environment variables.
 */
export class StatelessStack extends Stack {
  readonly functions: Record<RouteTarget, ServiceFunction>;
  readonly api: ReadApi;
  readonly edge?: EdgeDistribution;
  readonly dashboard?: ServiceDashboard;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { config, stateful } = props;
    const { network, store, budget } = stateful;
    const t = config.timeouts;

    // The request counts (EMF) land in the stage's namespace, beside the alarms' metric filters, so one
    // account can hold several stages and each dashboard plots its own.
    const namespace = `GeoMeasurementApi/${config.stageName}`;

    // Timeouts, innermost first. A paused Aurora takes 15-20 s to resume. A function gives up a connection
    // attempt after dbConnectMs and answers 503 upstream_timeout itself; the wake continues meanwhile, so
    // the single retry the contract recommends lands on a warm cluster. The worst call (two connection
    // attempts, caller statement, budget call, data statement, margin: lib/config.ts worstCallMs) must
    // fit the Lambda timeout, which must stay below the integration timeout, so the caller always gets our
    // error body and never API Gateway's bare 503: config.ts refuses any setting that breaks this order.
    const switchEnv = {
      API_DISABLED: String(!config.api.enabled),
      API_DISABLED_RETRY_AFTER: String(config.api.retryAfterSeconds),
      LOG_LEVEL: config.logLevel,
      POWERTOOLS_METRICS_NAMESPACE: namespace,
    };
    const serviceEnv: Record<string, string> = {
      ...switchEnv,
      // With readers, the proxy's read-only endpoint serves the reads and the default endpoint (the
      // writer) keeps the last_used_at stamp; without, the default endpoint does both.
      DB_HOST: store.readOnlyEndpoint ?? store.proxy.endpoint,
      ...(store.readOnlyEndpoint ? { DB_WRITER_HOST: store.proxy.endpoint } : {}),
      DB_PORT: String(store.port),
      DB_NAME: store.databaseName,
      DB_USER: READER_DB_USER,
      DB_IAM_AUTH: 'true',
      DB_SSL: 'true',
      DB_POOL_MAX: String(config.lambda.dbPoolMax),
      DB_CONNECT_TIMEOUT_MS: String(t.dbConnectMs),
      DB_STATEMENT_TIMEOUT_MS: String(t.dbStatementMs),
      // RDS Proxy refuses statement_timeout in the startup packet; the proxy sets it on its own database
      // connections instead (InitQuery, lib/constructs/measurement-store.ts). The client still gives up
      // 1 s after it (query_timeout).
      DB_SEND_STATEMENT_TIMEOUT: 'false',
      BUDGET_TABLE: budget.table.tableName,
      BUDGET_TIMEOUT_MS: String(t.budgetMs),
      LAST_USED_THROTTLE_SECONDS: String(config.lambda.lastUsedThrottleSeconds),
      // A CloudFormation dynamic reference: the value is resolved at deploy time and lands in the
      // function configuration. Acceptable because it only signs pagination cursors (a leak lets someone
      // forge a cursor, which still runs under the caller's own key and reach), and it spares every
      // function a Secrets Manager grant and a network call at cold start.
      CURSOR_SECRET: SecretValue.secretsManager(stateful.cursorSecret.secretArn, {
        ...(config.cursorSecretVersionId ? { versionId: config.cursorSecretVersionId } : {}),
      }).unsafeUnwrap(),
      ...(config.planCeilings ? { PLAN_CEILINGS: JSON.stringify(config.planCeilings) } : {}),
    };

    const inVpc = { vpc: network.vpc, vpcSubnets: network.subnets, securityGroups: [network.functionsSecurityGroup] };
    const make = (
      target: RouteTarget,
      entry: string,
      description: string,
      environment: Record<string, string>,
      placement: 'vpc' | 'outside' = 'vpc',
      afterBundling?: (inputDir: string, outputDir: string) => string[],
    ) =>
      new ServiceFunction(this, `${target.charAt(0).toUpperCase()}${target.slice(1)}`, {
        entry,
        description,
        environment,
        timeout: Duration.seconds(t.lambdaSeconds),
        memorySize: config.lambda.memoryMb,
        logRetentionDays: config.logRetentionDays,
        ...(placement === 'vpc' ? { network: inVpc } : {}),
        bundle: props.bundle,
        tracing: config.tracing,
        ...(afterBundling ? { afterBundling } : {}),
      });

    const functions = {} as Record<RouteTarget, ServiceFunction>;
    for (const family of FAMILIES) {
      functions[family] = make(family, `functions/${family}/handler.ts`, `Reads of the ${family} family`, serviceEnv);
    }
    functions.mcp = make('mcp', 'functions/mcp/handler.ts', 'MCP server exposing the reads as tools', {
      ...serviceEnv,
      ...(config.api.mcpAllowedOrigins ? { MCP_ALLOWED_ORIGINS: config.api.mcpAllowedOrigins.join(',') } : {}),
    });
    // The OpenAPI document (and the $default route's 404/405) is bytes the bundle carries: no database,
    // no budget, no secret, hence no grant, and no place in the VPC or the group the proxy admits.
    // The reference page too: built from the same document (npm run docs: Redocly, skipped when the page
    // is already up to date) and shipped beside the bundle, which reads it on the first request for it.
    functions.openapi = make(
      'openapi',
      'functions/openapi/handler.ts',
      'Serves openapi.json and the reference page',
      switchEnv,
      'outside',
      (inputDir, outputDir) => [
        `"${inputDir}/node_modules/.bin/tsx" "${inputDir}/scripts/openapi/docs.ts" --copy-to "${outputDir}/${REFERENCE_FILE}"`,
      ],
    );
    this.functions = functions;

    for (const target of [...FAMILIES, 'mcp'] as const) {
      store.grantRead(functions[target].fn);
      budget.grantConsume(functions[target].fn);
    }

    this.api = new ReadApi(this, 'Http', {
      apiName: `geo-measurement-${config.stageName}`,
      reads: props.reads,
      functions: Object.fromEntries(Object.entries(functions).map(([k, v]) => [k, v.fn])) as Record<RouteTarget, ServiceFunction['fn']>,
      integrationTimeout: Duration.seconds(t.integrationSeconds),
      throttleRatePerSecond: config.api.throttleRatePerSecond,
      throttleBurst: config.api.throttleBurst,
      logRetentionDays: config.logRetentionDays,
      domain: config.domain,
    });

    const alarms = new ServiceAlarms(this, 'Alarms', {
      namespace,
      stage: this.api.stage,
      functions: Object.values(functions).map((f) => ({ fn: f.fn, logGroup: f.logGroup })),
      thresholds: config.alarms,
      alarmEmail: config.alarmEmail,
    });
    if (config.dashboard) {
      this.dashboard = new ServiceDashboard(this, 'Dashboard', {
        stageName: config.stageName,
        namespace,
        stage: this.api.stage,
        functions: Object.fromEntries(Object.entries(functions).map(([k, v]) => [k, { fn: v.fn, logGroup: v.logGroup }])),
        ...store.metricNames,
        alarms: alarms.alarms,
      });
      new CfnOutput(this, 'DashboardName', { value: this.dashboard.dashboard.dashboardName });
    }

    new CfnOutput(this, 'ApiUrl', { value: `${this.api.api.apiEndpoint}/api/v1` });
    if (props.edge) {
      this.edge = new EdgeDistribution(this, 'Edge', {
        api: this.api.api,
        webAclArn: props.edge.firewall.webAcl.attrArn,
        integrationTimeout: Duration.seconds(t.integrationSeconds),
      });
      // The address to give clients when the edge is on (docs/operating.md#edge-protection).
      new CfnOutput(this, 'EdgeUrl', { value: `https://${this.edge.distribution.distributionDomainName}/api/v1` });
    }
    if (config.domain && this.api.domainName) {
      new CfnOutput(this, 'CustomDomainUrl', { value: `https://${config.domain.name}/api/v1` });
      // Point the domain's DNS record (CNAME or alias) at this name; the DNS zone is not managed here.
      new CfnOutput(this, 'CustomDomainTarget', { value: this.api.domainName.regionalDomainName });
    }
  }
}
