import { beforeAll, describe, expect, it } from '@jest/globals';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { importStage, type Resources, resources, synth } from './support.js';

type Json = Record<string, any>;
const withBastion = (stage: Json = {}) => ({ stages: { dev: { ...stage, bastion: true } } });
const endpointServices = (t: Template) =>
  Object.values(resources(t, 'AWS::EC2::VPCEndpoint'))
    .map((e) => e.Properties!.ServiceName)
    .filter((n): n is string => typeof n === 'string')
    .sort();
const ssm = ['com.amazonaws.eu-west-1.ssm', 'com.amazonaws.eu-west-1.ssmmessages'];

/** Every rule naming a group, as [direction, group logical id, rule] from standalone and inline rules. */
function rulesOf(all: Resources): Array<['in' | 'out', string, Json]> {
  const id = (v: Json) => (v?.['Fn::GetAtt'] ? v['Fn::GetAtt'][0] : JSON.stringify(v));
  const out: Array<['in' | 'out', string, Json]> = [];
  for (const [name, r] of Object.entries(all)) {
    const p = (r.Properties ?? {}) as Json;
    if (r.Type === 'AWS::EC2::SecurityGroupIngress') out.push(['in', id(p.GroupId), p]);
    if (r.Type === 'AWS::EC2::SecurityGroupEgress') out.push(['out', id(p.GroupId), p]);
    if (r.Type === 'AWS::EC2::SecurityGroup') {
      for (const x of p.SecurityGroupIngress ?? []) out.push(['in', name, x]);
      for (const x of p.SecurityGroupEgress ?? []) out.push(['out', name, x]);
    }
  }
  return out;
}

describe('tunnel bastion (stage setting "bastion")', () => {
  let off: Template;
  let on: Template;
  beforeAll(() => {
    off = synth({}, { account: '111111111111', region: 'eu-west-1' }).statefulTemplate;
    on = synth(withBastion(), { account: '111111111111', region: 'eu-west-1' }).statefulTemplate;
  });

  it('absent by default: no instance, no Session Manager endpoints, no output', () => {
    off.resourceCountIs('AWS::EC2::Instance', 0);
    expect(endpointServices(off)).not.toEqual(expect.arrayContaining([ssm[0]]));
    expect(endpointServices(off)).not.toEqual(expect.arrayContaining([ssm[1]]));
    expect(Object.keys(off.toJSON().Outputs)).not.toContain('BastionInstanceId');
  });

  it('when enabled: one small ARM instance, IMDSv2 only, encrypted disk, no public address, in an isolated subnet', () => {
    on.resourceCountIs('AWS::EC2::Instance', 1);
    on.hasResourceProperties('AWS::EC2::Instance', {
      InstanceType: 't4g.nano',
      BlockDeviceMappings: [{ DeviceName: '/dev/xvda', Ebs: Match.objectLike({ Encrypted: true }) }],
      SubnetId: { Ref: Match.stringLikeRegexp('^NetworkVpcisolatedSubnet1') },
      NetworkInterfaces: Match.absent(),
    });
    on.hasResourceProperties('AWS::EC2::LaunchTemplate', { LaunchTemplateData: { MetadataOptions: { HttpTokens: 'required' } } });
    for (const subnet of Object.values(resources(on, 'AWS::EC2::Subnet'))) expect(subnet.Properties!.MapPublicIpOnLaunch).toBe(false);
    const [instance] = Object.keys(resources(on, 'AWS::EC2::Instance'));
    on.hasOutput('BastionInstanceId', { Value: { Ref: instance } });
  });

  it('Session Manager endpoints (ssm, ssmmessages) with private DNS, in the bastion zone only; still no NAT', () => {
    expect(endpointServices(on)).toEqual(expect.arrayContaining(ssm));
    for (const service of ssm) {
      on.hasResourceProperties('AWS::EC2::VPCEndpoint', {
        ServiceName: service,
        PrivateDnsEnabled: true,
        SubnetIds: [{ Ref: Match.stringLikeRegexp('^NetworkVpcisolatedSubnet1') }],
      });
    }
    on.resourceCountIs('AWS::EC2::NatGateway', 0);
  });

  it('no inbound rule on the bastion; out only to the cluster port and HTTPS in the VPC; the cluster admits it, the proxy does not', () => {
    const all = resources(on);
    const instance = Object.values(resources(on, 'AWS::EC2::Instance'))[0]!;
    const [bastionSg] = (instance.Properties!.SecurityGroupIds as Json[]).map((g) => g['Fn::GetAtt'][0] as string);
    const rules = rulesOf(all);
    expect(rules.filter(([d, g]) => d === 'in' && g === bastionSg)).toEqual([]);
    const egress = rules.filter(([d, g]) => d === 'out' && g === bastionSg).map(([, , r]) => r);
    const clusterSg = Object.keys(resources(on, 'AWS::EC2::SecurityGroup')).find((k) => k.startsWith('StoreClusterSecurityGroup'))!;
    expect(egress).toHaveLength(2);
    expect(egress).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          IpProtocol: 'tcp',
          FromPort: 443,
          ToPort: 443,
          CidrIp: { 'Fn::GetAtt': [expect.stringMatching(/^NetworkVpc/), 'CidrBlock'] },
        }),
        expect.objectContaining({
          IpProtocol: 'tcp',
          FromPort: 5432,
          ToPort: 5432,
          DestinationSecurityGroupId: { 'Fn::GetAtt': [clusterSg, 'GroupId'] },
        }),
      ]),
    );
    const fromBastion = rules.filter(([d, , r]) => d === 'in' && r.SourceSecurityGroupId?.['Fn::GetAtt']?.[0] === bastionSg);
    expect(fromBastion.map(([, g]) => g)).toEqual([clusterSg]);
    expect(fromBastion[0]![2]).toMatchObject({ IpProtocol: 'tcp', FromPort: 5432, ToPort: 5432 });
  });

  it('its role may register with Systems Manager and open session channels, nothing more', () => {
    const instance = Object.values(resources(on, 'AWS::EC2::Instance'))[0]!;
    const profile = resources(on, 'AWS::IAM::InstanceProfile')[(instance.Properties!.IamInstanceProfile as { Ref: string }).Ref]!;
    const roleRef = (profile.Properties!.Roles as Array<{ Ref: string }>)[0]!.Ref;
    const role = resources(on, 'AWS::IAM::Role')[roleRef]!;
    expect(role.Properties!.ManagedPolicyArns).toBeUndefined();
    const actions = Object.values(resources(on, 'AWS::IAM::Policy'))
      .filter((p) => (p.Properties!.Roles as Array<{ Ref: string }>).some((r) => r.Ref === roleRef))
      .flatMap((p) =>
        (p.Properties!.PolicyDocument as { Statement: Array<{ Action: string | string[] }> }).Statement.flatMap((st) => st.Action),
      )
      .sort();
    expect(actions).toEqual([
      'ssm:UpdateInstanceInformation',
      'ssmmessages:CreateControlChannel',
      'ssmmessages:CreateDataChannel',
      'ssmmessages:OpenControlChannel',
      'ssmmessages:OpenDataChannel',
    ]);
  });

  it('imported store: the imported cluster group admits the bastion; endpoints only where the stage creates endpoints', () => {
    const imported = synth(withBastion(importStage), { account: '111111111111', region: 'eu-west-1' }).statefulTemplate;
    imported.resourceCountIs('AWS::EC2::Instance', 1);
    const rules = rulesOf(resources(imported)).filter(
      ([d, , r]) => d === 'in' && r.GroupId === 'sg-0123456789abcdef0' && r.Description === 'tunnel from the bastion',
    );
    expect(rules).toHaveLength(1);
    expect(endpointServices(imported)).toEqual(expect.arrayContaining(ssm));
    const own = synth(
      withBastion({ database: { ...importStage.database, vpc: { ...importStage.database.vpc, createEndpoints: false } } }),
      {
        account: '111111111111',
        region: 'eu-west-1',
      },
    ).statefulTemplate;
    own.resourceCountIs('AWS::EC2::Instance', 1);
    own.resourceCountIs('AWS::EC2::VPCEndpoint', 0);
  });
});
