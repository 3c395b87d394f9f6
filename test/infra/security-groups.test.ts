import { describe, expect, it } from '@jest/globals';
import { importStage, type Resources, type Synthesized, synth } from './support.js';

type Json = Record<string, unknown>;

interface Rule {
  direction: 'ingress' | 'egress';
  group: string;
  peer: string;
  protocol: string;
  from: unknown;
  to: unknown;
  where: string;
}

interface StackTemplate {
  Resources: Resources;
  Outputs?: Record<string, { Value: unknown; Export?: { Name: unknown } }>;
}

/**
 * Every security-group rule of a set of stacks, standalone (AWS::EC2::SecurityGroupIngress/Egress) and
 * inline (SecurityGroupIngress/SecurityGroupEgress of AWS::EC2::SecurityGroup), in the terms EC2 compares
 * when it refuses a duplicate: group, peer, protocol, port range. Checked over all stacks of a stage at
 * once: a rule one stack adds to another's group is the same rule to EC2, so a group named through a
 * cross-stack reference (Fn::GetStackOutput of a weak reference, Fn::ImportValue of an export) is
 * resolved to the producing stack's resource. A port given as `GetAtt <cluster>.Endpoint.Port` is the
 * configured port: that is the value CloudFormation resolves it to.
 */
function securityGroupRules(stacks: Record<string, StackTemplate>, port: number): Rule[] {
  const exported = (name: unknown): [string, unknown] => {
    for (const [stack, t] of Object.entries(stacks)) {
      const out = Object.values(t.Outputs ?? {}).find((o) => JSON.stringify(o.Export?.Name) === JSON.stringify(name));
      if (out) return [stack, out.Value];
    }
    throw new Error(`no stack exports ${JSON.stringify(name)}`);
  };
  const ref = (v: unknown, stack: string): string => {
    if (typeof v === 'string') return v;
    const o = v as Json;
    if (o?.['Fn::GetAtt']) return `${stack}/${String((o['Fn::GetAtt'] as unknown[])[0])}`;
    if (o?.Ref) return `${stack}/${String(o.Ref)}`;
    if (o?.['Fn::GetStackOutput']) {
      const { StackName, OutputName } = o['Fn::GetStackOutput'] as { StackName: string; OutputName: string };
      const out = stacks[StackName]?.Outputs?.[OutputName];
      if (!out) throw new Error(`no output ${OutputName} in ${StackName}`);
      return ref(out.Value, StackName);
    }
    if (o?.['Fn::ImportValue'] !== undefined) {
      const [producer, value] = exported(o['Fn::ImportValue']);
      return ref(value, producer);
    }
    return JSON.stringify(v);
  };
  const portOf = (v: unknown): unknown => {
    const att = (v as Json | undefined)?.['Fn::GetAtt'] as [string, string] | undefined;
    if (att?.[1] === 'Endpoint.Port') return port;
    return v;
  };
  const peer = (r: Json, direction: Rule['direction'], stack: string): string => {
    const keys =
      direction === 'ingress'
        ? ['SourceSecurityGroupId', 'CidrIp', 'CidrIpv6', 'SourcePrefixListId']
        : ['DestinationSecurityGroupId', 'CidrIp', 'CidrIpv6', 'DestinationPrefixListId'];
    const key = keys.find((k) => r[k] !== undefined);
    return key ? `${key.replace(/^(Source|Destination)/, '')}:${ref(r[key], stack)}` : 'none';
  };
  const rule = (r: Json, direction: Rule['direction'], group: string, stack: string, where: string): Rule => ({
    direction,
    group,
    peer: peer(r, direction, stack),
    protocol: String(r.IpProtocol),
    from: portOf(r.FromPort),
    to: portOf(r.ToPort),
    where: `${stack}/${where}`,
  });
  const rules: Rule[] = [];
  for (const [stack, t] of Object.entries(stacks)) {
    for (const [id, res] of Object.entries(t.Resources)) {
      const p = (res.Properties ?? {}) as Json;
      if (res.Type === 'AWS::EC2::SecurityGroupIngress') rules.push(rule(p, 'ingress', ref(p.GroupId, stack), stack, id));
      if (res.Type === 'AWS::EC2::SecurityGroupEgress') rules.push(rule(p, 'egress', ref(p.GroupId, stack), stack, id));
      if (res.Type === 'AWS::EC2::SecurityGroup') {
        for (const r of (p.SecurityGroupIngress as Json[] | undefined) ?? [])
          rules.push(rule(r, 'ingress', `${stack}/${id}`, stack, `${id} (inline)`));
        for (const r of (p.SecurityGroupEgress as Json[] | undefined) ?? [])
          rules.push(rule(r, 'egress', `${stack}/${id}`, stack, `${id} (inline)`));
      }
    }
  }
  return rules;
}

const stage = (s: Synthesized): Record<string, StackTemplate> => ({
  [s.stateful.stackName]: s.statefulTemplate.toJSON() as StackTemplate,
  [s.stateless.stackName]: s.statelessTemplate.toJSON() as StackTemplate,
});

function duplicates(rules: Rule[]): string[][] {
  const seen = new Map<string, string[]>();
  for (const r of rules) {
    const key = JSON.stringify([r.direction, r.group, r.peer, r.protocol, r.from, r.to]);
    seen.set(key, [...(seen.get(key) ?? []), r.where]);
  }
  return [...seen.values()].filter((where) => where.length > 1);
}

describe('security-group rules: EC2 refuses a duplicate (InvalidPermission.Duplicate), so the template has none', () => {
  it.each([
    ['created store', {}, 5432],
    ['imported store', { stages: { dev: importStage } }, 5432],
    ['created store with the tunnel bastion', { stages: { dev: { bastion: true } } }, 5432],
    ['imported store with the tunnel bastion', { stages: { dev: { ...importStage, bastion: true } } }, 5432],
    [
      'imported store on another port',
      { stages: { dev: { database: { ...importStage.database, cluster: { ...importStage.database.cluster, port: 6543 } } } } },
      6543,
    ],
  ])('%s: no two rules of the stage (both stacks together) share group, peer, protocol and port range', (_name, context, port) => {
    const s = synth(context, { account: '111111111111', region: 'eu-west-1' });
    const rules = securityGroupRules(stage(s), port);
    expect(duplicates(rules)).toEqual([]);
    // The proxy reaches the cluster, and only through the rules the proxy target's bind() made.
    const toCluster = rules.filter((r) => r.direction === 'egress' && r.from === port && r.peer.startsWith('SecurityGroupId:'));
    expect(toCluster.length).toBeGreaterThan(0);
  });

  it('a rule in one stack duplicating a rule of the other, on its group named across stacks, is reported', () => {
    const proxySg = { 'Fn::GetAtt': ['ProxySg', 'GroupId'] };
    const fnSg = { 'Fn::GetAtt': ['FnSg', 'GroupId'] };
    const stateful: StackTemplate = {
      Resources: {
        ProxySg: { Type: 'AWS::EC2::SecurityGroup', Properties: {} },
        FnSg: { Type: 'AWS::EC2::SecurityGroup', Properties: {} },
        FromFns: {
          Type: 'AWS::EC2::SecurityGroupIngress',
          Properties: { GroupId: proxySg, SourceSecurityGroupId: fnSg, IpProtocol: 'tcp', FromPort: 5432, ToPort: 5432 },
        },
      },
      Outputs: { ProxySgOut: { Value: proxySg }, FnSgOut: { Value: fnSg, Export: { Name: 'fn-sg' } } },
    };
    const stateless: StackTemplate = {
      Resources: {
        AgainFromFns: {
          Type: 'AWS::EC2::SecurityGroupIngress',
          Properties: {
            GroupId: { 'Fn::GetStackOutput': { StackName: 'A', OutputName: 'ProxySgOut' } },
            SourceSecurityGroupId: { 'Fn::ImportValue': 'fn-sg' },
            IpProtocol: 'tcp',
            FromPort: 5432,
            ToPort: 5432,
          },
        },
      },
    };
    expect(duplicates(securityGroupRules({ A: stateful, B: stateless }, 5432))).toEqual([['A/FromFns', 'B/AgainFromFns']]);
    // Each stack alone has no duplicate: only the check over both sees it.
    expect(duplicates(securityGroupRules({ A: stateful }, 5432))).toEqual([]);
  });

  it('the check sees through GetAtt Endpoint.Port: the defect it guards against is reported', () => {
    // The stateful template before the fix: bind()'s rules (port from GetAtt) beside ours (literal 5432).
    const getAttPort = { 'Fn::GetAtt': ['StoreCluster', 'Endpoint.Port'] };
    const clusterSg = { 'Fn::GetAtt': ['ClusterSg', 'GroupId'] };
    const proxySg = { 'Fn::GetAtt': ['ProxySg', 'GroupId'] };
    const before: Resources = {
      ProxySg: {
        Type: 'AWS::EC2::SecurityGroup',
        Properties: { SecurityGroupEgress: [{ IpProtocol: 'tcp', FromPort: 5432, ToPort: 5432, DestinationSecurityGroupId: clusterSg }] },
      },
      ClusterSg: { Type: 'AWS::EC2::SecurityGroup', Properties: {} },
      BindIngress: {
        Type: 'AWS::EC2::SecurityGroupIngress',
        Properties: { GroupId: clusterSg, SourceSecurityGroupId: proxySg, IpProtocol: 'tcp', FromPort: getAttPort, ToPort: getAttPort },
      },
      OurIngress: {
        Type: 'AWS::EC2::SecurityGroupIngress',
        Properties: { GroupId: clusterSg, SourceSecurityGroupId: proxySg, IpProtocol: 'tcp', FromPort: 5432, ToPort: 5432 },
      },
      BindEgress: {
        Type: 'AWS::EC2::SecurityGroupEgress',
        Properties: {
          GroupId: proxySg,
          DestinationSecurityGroupId: clusterSg,
          IpProtocol: 'tcp',
          FromPort: getAttPort,
          ToPort: getAttPort,
        },
      },
    };
    expect(duplicates(securityGroupRules({ S: { Resources: before } }, 5432))).toEqual([
      ['S/ProxySg (inline)', 'S/BindEgress'],
      ['S/BindIngress', 'S/OurIngress'],
    ]);
    // On another port the GetAtt rules are different rules, and nothing is reported.
    expect(duplicates(securityGroupRules({ S: { Resources: before } }, 6543))).toEqual([]);
  });
});
