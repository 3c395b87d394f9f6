import { CfnResource, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { StageSettings } from '../config.js';
import { ignoreLintRule } from './cfn-lint.js';

export interface NetworkProps {
  database: StageSettings['database'];
  logRetentionDays: number;
}

/**
 * Private isolated subnets only: nothing here has a route to the Internet. The functions reach DynamoDB
 * through a gateway endpoint and the migration runner reaches Secrets Manager through an interface
 * endpoint, so no NAT gateway (and its hourly cost) is needed.
 */
export class Network extends Construct {
  readonly vpc: ec2.IVpc;
  readonly subnets: ec2.SubnetSelection = { subnetType: ec2.SubnetType.PRIVATE_ISOLATED };
  /** Present when this construct created it; imported VPCs may bring their own. */
  readonly dynamoDbEndpoint?: ec2.GatewayVpcEndpoint;
  readonly secretsManagerEndpoint?: ec2.InterfaceVpcEndpoint;
  /** True when the VPC belongs to this app, so its endpoints may be narrowed to this app's resources. */
  readonly owned: boolean;
  /** False for an imported VPC that brings its own endpoints: a second one with private DNS would clash. */
  readonly createsEndpoints: boolean;
  /** Carried by every service function; the proxy admits exactly this group. */
  readonly functionsSecurityGroup: ec2.SecurityGroup;

  constructor(scope: Construct, id: string, props: NetworkProps) {
    super(scope, id);
    const db = props.database;

    if (db.mode === 'create') {
      const flowLogs = new logs.LogGroup(this, 'FlowLogs', { retention: props.logRetentionDays as logs.RetentionDays });
      this.vpc = new ec2.Vpc(this, 'Vpc', {
        ipAddresses: ec2.IpAddresses.cidr(db.vpcCidr),
        // Two zones: the proxy and Aurora need two (the stateful stack resolves which, see availabilityZones).
        maxAzs: 2,
        natGateways: 0,
        subnetConfiguration: [{ name: 'isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 22 }],
        // Rejected flows only: they are what an investigation needs, at a fraction of ALL's volume.
        flowLogs: {
          rejected: {
            trafficType: ec2.FlowLogTrafficType.REJECT,
            destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogs),
          },
        },
      });
      Validations.of(this.vpc).acknowledge({
        id: 'CloudFormation-Validate::W3010',
        reason:
          'Zone names are resolved at synth (stage configuration, or the account lookup kept in cdk.context.json) so the subnets never move between deployments.',
      });
      // The same reason for cfn-lint, which reads the template's own metadata.
      for (const subnet of this.vpc.isolatedSubnets) ignoreLintRule(subnet, 'W3010');
      this.owned = true;
      this.createsEndpoints = true;
      this.retainDefaultSgHandlerLogs(props.logRetentionDays);
    } else {
      const v = db.vpc;
      this.vpc = ec2.Vpc.fromVpcAttributes(this, 'Vpc', {
        vpcId: v.vpcId,
        vpcCidrBlock: v.vpcCidr,
        availabilityZones: v.availabilityZones,
        isolatedSubnetIds: v.subnetIds,
        isolatedSubnetRouteTableIds: v.routeTableIds,
      });
      this.owned = false;
      this.createsEndpoints = v.createEndpoints;
    }

    if (this.createsEndpoints) {
      this.dynamoDbEndpoint = this.vpc.addGatewayEndpoint('DynamoDb', {
        service: ec2.GatewayVpcEndpointAwsService.DYNAMODB,
        subnets: [this.subnets],
      });
      // The default endpoint security group admits HTTPS from the VPC CIDR only.
      this.secretsManagerEndpoint = this.vpc.addInterfaceEndpoint('SecretsManager', {
        service: ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER,
        subnets: this.subnets,
        privateDnsEnabled: true,
      });
      Validations.of(this.secretsManagerEndpoint).acknowledge({
        id: 'AwsSolutions-EC23',
        reason: 'The rule cannot read the CIDR token: the endpoint security group admits HTTPS from the VPC CIDR only, never 0.0.0.0/0.',
      });
    }

    this.functionsSecurityGroup = new ec2.SecurityGroup(this, 'Functions', {
      vpc: this.vpc,
      description: 'Service functions: may reach the database proxy and the VPC endpoints',
      // Egress stays open inside the VPC: the subnets have no route out, so nothing leaves the VPC anyway,
      // and the DynamoDB gateway endpoint's prefix list cannot be named without a synth-time lookup.
      allowAllOutbound: true,
    });
  }

  /**
   * The interface endpoints a Session Manager session needs where nothing has a route out: `ssm` (the
   * agent registers the instance) and `ssmmessages` (session channels). `ec2messages` carries Run Command
   * only, which the tunnel does not use.
   */
  addSessionManagerEndpoints(subnets: ec2.SubnetSelection): void {
    if (!this.createsEndpoints) return;
    const services = { Ssm: ec2.InterfaceVpcEndpointAwsService.SSM, SsmMessages: ec2.InterfaceVpcEndpointAwsService.SSM_MESSAGES };
    for (const [id, service] of Object.entries(services)) {
      const endpoint = this.vpc.addInterfaceEndpoint(id, { service, subnets, privateDnsEnabled: true });
      Validations.of(endpoint).acknowledge({
        id: 'AwsSolutions-EC23',
        reason: 'The rule cannot read the CIDR token: the endpoint security group admits HTTPS from the VPC CIDR only, never 0.0.0.0/0.',
      });
    }
  }

  /**
   * The VPC's restrictDefaultSecurityGroup custom resource runs a CDK-made Lambda with no log group of
   * its own, so Lambda would create one on first run, without retention. Give it ours.
   */
  private retainDefaultSgHandlerLogs(retentionDays: number): void {
    const provider = Stack.of(this).node.tryFindChild('Custom::VpcRestrictDefaultSGCustomResourceProvider');
    const handler = provider?.node.tryFindChild('Handler');
    if (!(handler instanceof CfnResource)) return;
    const group = new logs.LogGroup(this, 'RestrictDefaultSgLogs', {
      retention: retentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    handler.addPropertyOverride('LoggingConfig', { LogGroup: group.logGroupName });
  }
}
