import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as rds from 'aws-cdk-lib/aws-rds';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { StageSettings } from '../config.js';
import type { Network } from './network.js';

/** The read-only role created by the migrations (shared/store/grants.sql); the service logs in as it. */
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

  constructor(scope: Construct, id: string, props: MeasurementStoreProps) {
    super(scope, id);
    const { network, database } = props;
    this.databaseName = props.databaseName;

    if (database.mode === 'create') {
      const [major] = database.engineVersion.split('.') as [string];
      // Created here rather than through cloudwatchLogsRetention, which would add a Lambda just to set it.
      const postgresLogs = new logs.LogGroup(this, 'PostgresLogs', {
        logGroupName: `/aws/rds/cluster/${props.clusterIdentifier}/postgresql`,
        retention: props.logRetentionDays as logs.RetentionDays,
      });
      const cluster = new rds.DatabaseCluster(this, 'Cluster', {
        engine: rds.DatabaseClusterEngine.auroraPostgres({
          version: rds.AuroraPostgresEngineVersion.of(database.engineVersion, major),
        }),
        clusterIdentifier: props.clusterIdentifier,
        writer: rds.ClusterInstance.serverlessV2('writer'),
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
          reason: 'Deletion protection is switched off by this stage configuration (database.deletionProtection=false): a disposable stage. Production stages keep it on.',
        });
      }
      cluster.addRotationSingleUser({
        automaticallyAfter: Duration.days(database.adminSecretRotationDays),
        vpcSubnets: network.subnets,
        ...(network.secretsManagerEndpoint ? { endpoint: network.secretsManagerEndpoint } : {}),
      });
      Validations.of(cluster).acknowledge({
        id: 'AwsSolutions-RDS11',
        reason:
          'Default PostgreSQL port kept: the cluster sits in isolated subnets and admits only the proxy, the migration runner and the rotation function by security group; a different port adds no protection.',
      });
      this.cluster = cluster;
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
      borrowTimeout: props.proxyBorrowTimeout,
    });
    proxySecurityGroup.addEgressRule(
      ec2.Peer.securityGroupId(this.cluster.connections.securityGroups[0]!.securityGroupId),
      ec2.Port.tcp(this.port),
      'to the cluster',
    );
    this.cluster.connections.allowFrom(proxySecurityGroup, ec2.Port.tcp(this.port), 'from the RDS Proxy');
    this.proxy.connections.allowFrom(network.functionsSecurityGroup, ec2.Port.tcp(this.port), 'from the service functions');
  }

  /** rds-db:connect through the proxy as geo_reader, and nothing else. */
  grantRead(grantee: iam.IGrantable): iam.Grant {
    return this.proxy.grantConnect(grantee, READER_DB_USER);
  }
}
