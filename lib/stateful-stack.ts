import { CfnOutput, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { StageConfig } from './config.js';
import { BudgetTable } from './constructs/budget-table.js';
import { MeasurementStore } from './constructs/measurement-store.js';
import { MigrationRunner } from './constructs/migration-runner.js';
import { Network } from './constructs/network.js';
import { TunnelBastion } from './constructs/tunnel-bastion.js';

export interface StatefulStackProps extends StackProps {
  config: StageConfig;
  bundle: boolean;
}

/**
 * Everything that holds data or takes long to create: network, measurement store, budget counters,
 * secrets. Deployed rarely; the stateless stack can be destroyed and recreated against it.
 */
export class StatefulStack extends Stack {
  readonly network: Network;
  readonly store: MeasurementStore;
  readonly budget: BudgetTable;
  readonly cursorSecret: secretsmanager.Secret;
  private readonly zones: string[] | undefined;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const { config } = props;
    this.zones = config.availabilityZones;

    this.network = new Network(this, 'Network', { database: config.database, logRetentionDays: config.logRetentionDays });
    this.budget = new BudgetTable(this, 'Budget');
    this.store = new MeasurementStore(this, 'Store', {
      network: this.network,
      database: config.database,
      databaseName: config.databaseName,
      logRetentionDays: config.logRetentionDays,
      clusterIdentifier: `geo-measurement-${config.stageName}`,
      proxyBorrowTimeout: Duration.seconds(config.timeouts.lambdaSeconds),
      statementTimeoutMs: config.timeouts.dbStatementMs,
    });
    const migrations = new MigrationRunner(this, 'MigrationRunner', {
      network: this.network,
      store: this.store,
      logRetentionDays: config.logRetentionDays,
      bundle: props.bundle,
      tracing: config.tracing,
    });

    if (config.bastion) {
      const bastion = new TunnelBastion(this, 'Bastion', { network: this.network });
      this.store.allowOwnerConnectionsFrom(bastion, 'tunnel from the bastion');
      // The --target of `aws ssm start-session` (docs/operating.md#reaching-the-database-through-a-tunnel).
      new CfnOutput(this, 'BastionInstanceId', { value: bastion.instance.instanceId });
    }

    // In a VPC of our own, the DynamoDB endpoint serves this service only: allow just the budget call.
    if (this.network.owned && this.network.dynamoDbEndpoint) {
      this.network.dynamoDbEndpoint.addToPolicy(
        new iam.PolicyStatement({
          principals: [new iam.AnyPrincipal()],
          actions: ['dynamodb:UpdateItem'],
          resources: [this.budget.table.tableArn],
        }),
      );
    }

    this.cursorSecret = new secretsmanager.Secret(this, 'CursorSecret', {
      description: 'HMAC key for pagination cursors of the measurement API',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });
    Validations.of(this.cursorSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Signs pagination cursors only and is resolved into the functions at deploy time; automatic rotation would not reach running functions and would only expire open cursors. Rotated by hand: new value, then its version id in cursorSecretVersionId, then deploy (docs/operating.md#rotating).',
    });

    new CfnOutput(this, 'ProxyEndpoint', { value: this.store.proxy.endpoint });
    if (this.store.readOnlyEndpoint) new CfnOutput(this, 'ReadOnlyProxyEndpoint', { value: this.store.readOnlyEndpoint });
    // The dimension of the proxy's CloudWatch metrics (docs/operating.md#what-to-watch-on-the-first-deployment).
    new CfnOutput(this, 'ProxyName', { value: this.store.proxy.dbProxyName });
    new CfnOutput(this, 'ClusterEndpoint', { value: this.store.cluster.clusterEndpoint.hostname });
    // The dimension of the writer's metrics, ServerlessDatabaseCapacity among them
    // (docs/operating.md#what-to-watch-on-the-first-deployment).
    if (this.store.writerInstanceId) new CfnOutput(this, 'WriterInstanceId', { value: this.store.writerInstanceId });
    new CfnOutput(this, 'AdminSecretArn', { value: this.store.adminSecret.secretArn });
    new CfnOutput(this, 'BudgetTableName', { value: this.budget.table.tableName });
    new CfnOutput(this, 'MigrateFunctionName', { value: migrations.function.fn.functionName });
    new CfnOutput(this, 'CursorSecretArn', { value: this.cursorSecret.secretArn });
  }

  /**
   * The zones of the stage configuration when it names them; otherwise CDK's own lookup: with a concrete
   * account and region it reads `availability-zones:account=...:region=...` from context, and when that is
   * missing it records the lookup for the CLI (which asks the account and writes cdk.context.json) and
   * returns placeholders meanwhile. cdk.json holds the answer for the offline synth's dummy account only.
   */
  override get availabilityZones(): string[] {
    return this.zones ?? super.availabilityZones;
  }
}
