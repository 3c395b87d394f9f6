import { Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { ignoreLintRule } from './cfn-lint.js';
import type { Network } from './network.js';

export interface TunnelBastionProps {
  network: Network;
}

/**
 * The far end of a Session Manager port-forwarding session to the cluster endpoint
 * (docs/operating.md#reaching-the-database-through-a-tunnel). Nothing connects to it: no inbound rule, no SSH key, no
 * public address; the SSM agent keeps its own outbound channel through the VPC endpoints, and sessions
 * ride on it. A session on it reaches the cluster's port and the VPC's HTTPS endpoints, nothing else.
 */
export class TunnelBastion extends Construct implements ec2.IConnectable {
  readonly instance: ec2.Instance;
  readonly connections: ec2.Connections;

  constructor(scope: Construct, id: string, props: TunnelBastionProps) {
    super(scope, id);
    const { vpc } = props.network;
    // One zone: a tunnel host needs no redundancy, and its endpoints then bill one zone's hours.
    const [zone] = vpc.availabilityZones;
    if (zone === undefined)
      throw new Error('TunnelBastion: the VPC lists no availability zone (the stage configuration gives it at least two)');
    const subnets: ec2.SubnetSelection = { subnetType: ec2.SubnetType.PRIVATE_ISOLATED, availabilityZones: [zone] };
    props.network.addSessionManagerEndpoints(subnets);

    const securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc,
      description: 'Tunnel bastion: no inbound; out to the cluster port and the VPC endpoints only',
      allowAllOutbound: false,
    });
    securityGroup.addEgressRule(ec2.Peer.ipv4(vpc.vpcCidrBlock), ec2.Port.tcp(443), 'Session Manager endpoints');

    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
      description: 'Tunnel bastion: register with Systems Manager and carry Session Manager sessions',
    });
    // Session Manager's documented minimum for an instance (no S3 or KMS: sessions are not logged there).
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: [
          'ssm:UpdateInstanceInformation',
          'ssmmessages:CreateControlChannel',
          'ssmmessages:CreateDataChannel',
          'ssmmessages:OpenControlChannel',
          'ssmmessages:OpenDataChannel',
        ],
        resources: ['*'],
      }),
    );

    this.instance = new ec2.Instance(this, 'Instance', {
      vpc,
      vpcSubnets: subnets,
      instanceType: ec2.InstanceType.of(ec2.InstanceClass.T4G, ec2.InstanceSize.NANO),
      // Amazon Linux 2023 ships the SSM agent. A newer image replaces the instance on the next deploy,
      // which loses nothing: it holds no state.
      machineImage: ec2.MachineImage.latestAmazonLinux2023({ cpuType: ec2.AmazonLinuxCpuType.ARM_64 }),
      securityGroup,
      role,
      requireImdsv2: true,
      blockDevices: [
        { deviceName: '/dev/xvda', volume: ec2.BlockDeviceVolume.ebs(8, { encrypted: true, volumeType: ec2.EbsDeviceVolumeType.GP3 }) },
      ],
    });
    this.connections = this.instance.connections;
    // For cfn-lint too: the zone is chosen at synth on purpose (the reason acknowledged below, W3010).
    ignoreLintRule(this.instance, 'W3010');

    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Session Manager instance permissions (ssm:UpdateInstanceInformation, ssmmessages channel actions) name no resource of their own; this is the minimum AWS documents for an instance.',
      },
      {
        id: 'CloudFormation-Validate::W3010',
        reason:
          'The zone is the first of the VPC, resolved at synth like its subnets (stage configuration, or the lookup kept in cdk.context.json).',
      },
      {
        id: 'AwsSolutions-EC28',
        reason: 'A tunnel host switched on while needed: nothing watches its metrics, so detailed monitoring would only add cost.',
      },
      {
        id: 'AwsSolutions-EC29',
        reason:
          'Holds no state and is meant to be removed by a deploy with bastion=false; termination protection would block exactly that.',
      },
    );
  }
}
