import { ArnFormat, CfnOutput, type CfnResource, Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as rds from 'aws-cdk-lib/aws-rds';
import type * as sam from 'aws-cdk-lib/aws-sam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IConstruct } from 'constructs';
import type { StageSettings } from '../config.js';
import type { Network } from './network.js';

/** The read-only role created by the migrations (shared/admin/sql/grants.sql); the service logs in as it. */
export const READER_DB_USER = 'geo_reader';
const ADMIN_DB_USER = 'geo_admin';

export interface MeasurementStoreProps {
  network: Network;
  database: StageSettings['database'];
  databaseName: string;
  logRetentionDays: number;
  /** Fixed so the PostgreSQL log group can be created (with its retention) before the cluster. */
  clusterIdentifier: string;
  /** How long the proxy waits for a database connection; bounded by the functions' own timeout. */
  proxyBorrowTimeout: Duration;
  /**
   * Server-side statement_timeout of the service's sessions, set by the proxy on each database connection
   * it opens (InitQuery). The functions cannot send it themselves: RDS Proxy refuses session parameters in
   * the startup packet, and a SET from the client would pin the session to one database connection.
   */
  statementTimeoutMs: number;
}

/**
 * The measurement store (Aurora PostgreSQL Serverless v2, created or imported) behind an RDS Proxy.
 *
 * The proxy uses end-to-end IAM authentication: functions present an IAM token for geo_reader, and the
 * proxy itself logs in to Aurora with an IAM token (its role may rds-db:connect as geo_reader). So no
 * password for geo_reader exists anywhere, and `GRANT rds_iam TO geo_reader` is what makes the login work.
 */
export class MeasurementStore extends Construct {
  readonly cluster: rds.IDatabaseCluster;
  readonly proxy: rds.DatabaseProxy;
  /** Owner credentials; only the migration runner reads them. */
  readonly adminSecret: secretsmanager.ISecret;
  readonly databaseName: string;
  readonly port: number;
  /**
   * The cluster's and the proxy's names as literals known at synth: the dimensions of their CloudWatch
   * metrics, which the stage's dashboard reads without a reference across stacks.
   */
  readonly metricNames: { clusterIdentifier: string; proxyName: string };
  /** The writer instance of a created cluster; an imported cluster's writer is not ours to name. */
  readonly writerInstanceId?: string;
  /**
   * Host name of the proxy's READ_ONLY endpoint, when the stage has reader instances: it spreads the
   * service's sessions over the readers. The proxy's default endpoint (`proxy.endpoint`) reaches the writer.
   */
  readonly readOnlyEndpoint?: string;
  /**
   * The proxy's resource id (`prx-...`), the resource part of its rds-db:connect ARN, published by this
   * stack as an output of its own. See grantRead.
   */
  private readonly proxyResourceId: CfnOutput;

  constructor(scope: Construct, id: string, props: MeasurementStoreProps) {
    super(scope, id);
    const { network, database } = props;
    this.databaseName = props.databaseName;

    if (database.mode === 'create') {
      const [major] = database.engineVersion.split('.') as [string];
      // Created here rather than through cloudwatchLogsRetention, which would add a Lambda just to set it.
      // Its name is fixed by RDS, so it is deleted with the stack: a retained group of that name would make
      // the next deployment of the stage (after a destroy, or after a failed first deployment rolled back)
      // fail with "already exists". The cluster depends on it, so CloudFormation deletes the cluster first
      // and nothing writes to the group while it goes.
      const postgresLogs = new logs.LogGroup(this, 'PostgresLogs', {
        logGroupName: `/aws/rds/cluster/${props.clusterIdentifier}/postgresql`,
        retention: props.logRetentionDays as logs.RetentionDays,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      const cluster = new rds.DatabaseCluster(this, 'Cluster', {
        engine: rds.DatabaseClusterEngine.auroraPostgres({
          version: rds.AuroraPostgresEngineVersion.of(database.engineVersion, major),
        }),
        clusterIdentifier: props.clusterIdentifier,
        writer: rds.ClusterInstance.serverlessV2('writer'),
        // The first reader is the failover target (promotion tier 1): it never runs below the writer's
        // capacity, so a failover does not land on an instance scaled down to nothing. It still scales up
        // on its own read load, like the others (tier 2), which follow that load only.
        readers: Array.from({ length: database.readers }, (_, i) =>
          rds.ClusterInstance.serverlessV2(`reader${i + 1}`, { scaleWithWriter: i === 0 }),
        ),
        // 0 lets the cluster pause when nobody reads: the service costs storage only between uses.
        serverlessV2MinCapacity: database.minCapacity,
        serverlessV2MaxCapacity: database.maxCapacity,
        ...(database.minCapacity === 0 ? { serverlessV2AutoPauseDuration: Duration.minutes(database.autoPauseMinutes) } : {}),
        vpc: network.vpc,
        vpcSubnets: network.subnets,
        credentials: rds.Credentials.fromGeneratedSecret(ADMIN_DB_USER),
        defaultDatabaseName: props.databaseName,
        storageEncrypted: true,
        iamAuthentication: true,
        deletionProtection: database.deletionProtection,
        backup: { retention: Duration.days(database.backupRetentionDays) },
        cloudwatchLogsExports: ['postgresql'],
        removalPolicy: RemovalPolicy.SNAPSHOT,
      });
      cluster.node.addDependency(postgresLogs);
      if (!database.deletionProtection) {
        Validations.of(cluster).acknowledge({
          id: 'AwsSolutions-RDS10',
          reason:
            'Deletion protection is switched off by this stage configuration (database.deletionProtection=false): a disposable stage. Production stages keep it on.',
        });
      }
      const rotation = cluster.addRotationSingleUser({
        automaticallyAfter: Duration.days(database.adminSecretRotationDays),
        // Not at creation: the first rotation would otherwise run while the migration runner logs in with
        // the password it just read, and fail the deployment. The schedule's first rotation comes later.
        rotateImmediatelyOnUpdate: false,
        vpcSubnets: network.subnets,
        ...(network.secretsManagerEndpoint ? { endpoint: network.secretsManagerEndpoint } : {}),
      });
      // With RotateImmediatelyOnUpdate false, creating the schedule still runs the rotation function's
      // testSecret step, which logs in to the database. The schedule depends on the cluster's log group
      // only, so CloudFormation could create it before the writer instance exists, the test would fail
      // and the stack roll back. (It lives inside the cluster construct, so it can name the writer only.)
      const schedule = cluster.secret?.node.tryFindChild('RotationSchedule');
      const writer = cluster.node.tryFindChild('writer');
      if (!schedule || !writer) throw new Error('MeasurementStore: rotation schedule or writer instance not found; aws-cdk-lib moved them');
      schedule.node.addDependency(writer);
      // The rotation function comes from the Serverless Application Repository with a name of CDK's making;
      // Lambda would create its log group on first run, without retention. Created first, with retention.
      const application = rotation.node.defaultChild as sam.CfnApplication;
      const rotationFunctionName = (application.parameters as Record<string, string>).functionName;
      const rotationLogs = new logs.LogGroup(this, 'RotationLogs', {
        logGroupName: `/aws/lambda/${rotationFunctionName}`,
        retention: props.logRetentionDays as logs.RetentionDays,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      application.node.addDependency(rotationLogs);
      Validations.of(cluster).acknowledge({
        id: 'AwsSolutions-RDS11',
        reason:
          'Default PostgreSQL port kept: the cluster sits in isolated subnets and admits only the proxy, the migration runner and the rotation function by security group; a different port adds no protection.',
      });
      this.cluster = cluster;
      this.writerInstanceId = cluster.instanceIdentifiers[0];
      this.adminSecret = cluster.secret as secretsmanager.ISecret;
      this.port = 5432;
    } else {
      const c = database.cluster;
      this.cluster = rds.DatabaseCluster.fromDatabaseClusterAttributes(this, 'Cluster', {
        clusterIdentifier: c.clusterIdentifier,
        clusterResourceIdentifier: c.clusterResourceIdentifier,
        clusterEndpointAddress: c.endpoint,
        port: c.port,
        securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(this, 'ClusterSecurityGroup', c.securityGroupId)],
        engine: rds.DatabaseClusterEngine.AURORA_POSTGRESQL,
      });
      this.adminSecret = secretsmanager.Secret.fromSecretCompleteArn(this, 'AdminSecret', c.adminSecretArn);
      this.port = c.port;
    }

    const stack = Stack.of(this);
    const proxyRole = new iam.Role(this, 'ProxyRole', {
      assumedBy: new iam.ServicePrincipal('rds.amazonaws.com'),
      description: 'RDS Proxy: log in to the cluster as the read-only user with an IAM token',
    });
    proxyRole.addToPolicy(
      new iam.PolicyStatement({
        actions: ['rds-db:connect'],
        resources: [
          stack.formatArn({
            service: 'rds-db',
            resource: 'dbuser',
            resourceName: `${this.cluster.clusterResourceIdentifier}/${READER_DB_USER}`,
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        ],
      }),
    );

    const proxySecurityGroup = new ec2.SecurityGroup(this, 'ProxySecurityGroup', {
      vpc: network.vpc,
      description: 'RDS Proxy: admits the service functions only',
      allowAllOutbound: false,
    });
    this.proxy = new rds.DatabaseProxy(this, 'Proxy', {
      proxyTarget: rds.ProxyTarget.fromCluster(this.cluster),
      vpc: network.vpc,
      vpcSubnets: network.subnets,
      securityGroups: [proxySecurityGroup],
      role: proxyRole,
      requireTLS: true,
      iamAuth: true,
      defaultAuthScheme: rds.DefaultAuthScheme.IAM_AUTH,
      // How long a request waits for a database connection (Aurora resuming, or every one in use): the
      // Lambda timeout, since past it nobody is waiting. The function's own connect and statement limits
      // end the call sooner with 503 upstream_timeout, while the proxy's wait keeps the cluster waking.
      borrowTimeout: props.proxyBorrowTimeout,
      // The service reaches the database through the proxy only, so the proxy may use all of
      // max_connections (the default, made explicit). With no idle ones kept (below) it holds only
      // connections in use, and the owner's rare direct logins (migrations, admin commands, rotation) find
      // a slot but during a burst that takes them all; the migration runner retries for minutes.
      maxConnectionsPercent: 100,
      // Idle database connections are closed at once: a connection the proxy keeps open is a user
      // connection to Aurora, and a 0-ACU cluster pauses only when it has none. The price is one new
      // database connection (IAM login) per burst after a quiet spell; the proxy keeps client connections.
      maxIdleConnectionsPercent: 0,
      // Client connections (the default, made explicit). An idle, unpinned client connection holds no
      // database connection, so closing it sooner would not help Aurora pause; it would only let more
      // frozen execution environments thaw onto a closed connection, whose next statement fails (the
      // functions do not retry statements). A running function closes its own idle connections after the
      // pool's 60 s (shared/store/db.ts), well before this.
      idleClientTimeout: Duration.minutes(30),
      initQuery: `SET statement_timeout = ${props.statementTimeoutMs}`,
    });
    // CDK tags the proxy's target group like every taggable L1, but AWS::RDS::DBProxyTargetGroup takes no
    // Tags: its schema in the CloudFormation registry (the one cfn-lint ships, and the resource provider's
    // own, aws-cloudformation-resource-providers-rds-proxy) has no such property and says taggable: false.
    // The proxy itself and its endpoints carry the stage's tags.
    const targetGroup = this.proxy.node.findChild('ProxyTargetGroup') as CfnResource;
    targetGroup.addPropertyDeletionOverride('Tags');

    this.metricNames = {
      clusterIdentifier: database.mode === 'create' ? props.clusterIdentifier : database.cluster.clusterIdentifier,
      proxyName: (this.proxy.node.defaultChild as rds.CfnDBProxy).dbProxyName,
    };

    // The proxy's ARN is arn:<partition>:rds:<region>:<account>:db-proxy:prx-<id>; its IAM resource is
    // the prx-<id> part. Computed here, where the ARN is this stack's own attribute, and published as an
    // output: a consumer stack that split the ARN itself would split a Fn::GetStackOutput, which cfn-lint
    // refuses inside Fn::Split (E1022).
    this.proxyResourceId = new CfnOutput(this, 'ProxyResourceId', {
      description: 'Resource id of the RDS Proxy (the rds-db:connect resource of its endpoints)',
      value: Fn.select(6, Fn.split(':', this.proxy.dbProxyArn)),
    });

    if (database.mode === 'create' && database.readers > 0) {
      // Same subnets and security group as the default endpoint, so the same functions reach it.
      const readOnly = new rds.CfnDBProxyEndpoint(this, 'ReadOnlyEndpoint', {
        dbProxyEndpointName: `${props.clusterIdentifier}-read-only`,
        dbProxyName: this.proxy.dbProxyName,
        vpcSubnetIds: network.vpc.selectSubnets(network.subnets).subnetIds,
        vpcSecurityGroupIds: [proxySecurityGroup.securityGroupId],
        targetRole: 'READ_ONLY',
      });
      // A read-only endpoint serves once readers are registered behind the proxy: after the target group
      // (which registers the cluster) and the reader instances.
      const readers = Array.from({ length: database.readers }, (_, i) => this.cluster.node.findChild(`reader${i + 1}`));
      readOnly.node.addDependency(targetGroup, ...readers);
      this.readOnlyEndpoint = readOnly.attrEndpoint;
    }

    // The proxy -> cluster rules (egress on the proxy's group, ingress on the cluster's) come from
    // ProxyTarget.fromCluster().bind(); adding them here too put each rule in the template twice, and
    // EC2 refuses the second (InvalidPermission.Duplicate). test/infra/security-groups.test.ts guards it.
    this.proxy.connections.allowFrom(network.functionsSecurityGroup, ec2.Port.tcp(this.port), 'from the service functions');
  }

  /**
   * Lets a peer reach the cluster endpoint itself, where the owner logs in with the admin secret (the
   * proxy admits geo_reader only). For the migration runner and the tunnel bastion.
   */
  allowOwnerConnectionsFrom(peer: ec2.IConnectable, description: string): void {
    this.cluster.connections.allowFrom(peer, ec2.Port.tcp(this.port), description);
  }

  /**
   * rds-db:connect through the proxy as geo_reader, and nothing else. The resource covers every endpoint
   * of the proxy (default and read-only): IAM names the proxy by its resource id, not by endpoint.
   * From another stack, the id comes from this stack's ProxyResourceId output through Fn::GetStackOutput,
   * the same mechanism as the app's other cross-stack references (weak references, cdk.json).
   */
  grantRead(grantee: iam.IGrantable & IConstruct): iam.Grant {
    const producer = Stack.of(this);
    const consumer = Stack.of(grantee);
    let resourceId = this.proxyResourceId.value as string;
    if (consumer !== producer) {
      consumer.addStackDependency(producer, 'rds-db:connect names the proxy of the stateful stack');
      resourceId = Fn.getStackOutput(producer.stackName, this.proxyResourceId.logicalId, producer.region);
    }
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['rds-db:connect'],
      resourceArns: [
        consumer.formatArn({
          service: 'rds-db',
          resource: 'dbuser',
          resourceName: `${resourceId}/${READER_DB_USER}`,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
    });
  }
}
