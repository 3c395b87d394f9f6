import { describe, expect, it } from '@jest/globals';
import { importStage, resources, synth, type Resources } from './support.js';

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

/**
 * Every security-group rule of a template, standalone (AWS::EC2::SecurityGroupIngress/Egress) and inline
 * (SecurityGroupIngress/SecurityGroupEgress of AWS::EC2::SecurityGroup), in the terms EC2 compares when it
 * refuses a duplicate: group, peer, protocol, port range. A port given as `GetAtt <cluster>.Endpoint.Port`
 * is the configured port: that is the value CloudFormation resolves it to.
 */
export function securityGroupRules(all: Resources, port: number): Rule[] {
  const ref = (v: unknown): string => {
    if (typeof v === 'string') return v;
    const o = v as Json;
    if (o?.['Fn::GetAtt']) return String((o['Fn::GetAtt'] as unknown[])[0]);
    if (o?.Ref) return String(o.Ref);
    return JSON.stringify(v);
  };
  const portOf = (v: unknown): unknown => {
    const att = (v as Json | undefined)?.['Fn::GetAtt'] as [string, string] | undefined;
    if (att?.[1] === 'Endpoint.Port') return port;
    return v;
  };
  const peer = (r: Json, direction: Rule['direction']): string => {
    const keys = direction === 'ingress' ? ['SourceSecurityGroupId', 'CidrIp', 'CidrIpv6', 'SourcePrefixListId'] : ['DestinationSecurityGroupId', 'CidrIp', 'CidrIpv6', 'DestinationPrefixListId'];
    const key = keys.find((k) => r[k] !== undefined);
    return key ? `${key.replace(/^(Source|Destination)/, '')}:${ref(r[key])}` : 'none';
  };
  const rule = (r: Json, direction: Rule['direction'], group: string, where: string): Rule => ({
    direction,
    group,
    peer: peer(r, direction),
    protocol: String(r.IpProtocol),
    from: portOf(r.FromPort),
    to: portOf(r.ToPort),
    where,
  });
  const rules: Rule[] = [];
  for (const [id, res] of Object.entries(all)) {
    const p = (res.Properties ?? {}) as Json;
    if (res.Type === 'AWS::EC2::SecurityGroupIngress') rules.push(rule(p, 'ingress', ref(p.GroupId), id));
    if (res.Type === 'AWS::EC2::SecurityGroupEgress') rules.push(rule(p, 'egress', ref(p.GroupId), id));
    if (res.Type === 'AWS::EC2::SecurityGroup') {
      for (const r of (p.SecurityGroupIngress as Json[] | undefined) ?? []) rules.push(rule(r, 'ingress', id, `${id} (inline)`));
      for (const r of (p.SecurityGroupEgress as Json[] | undefined) ?? []) rules.push(rule(r, 'egress', id, `${id} (inline)`));
    }
  }
  return rules;
}

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
    ['imported store on another port', { stages: { dev: { database: { ...importStage.database, cluster: { ...importStage.database.cluster, port: 6543 } } } } }, 6543],
  ])('%s: no two rules share group, peer, protocol and port range', (_name, context, port) => {
    const s = synth(context, { account: '111111111111', region: 'eu-west-1' });
    for (const t of [s.statefulTemplate, s.statelessTemplate]) {
      const rules = securityGroupRules(resources(t), port);
      expect(duplicates(rules)).toEqual([]);
    }
    // The proxy reaches the cluster, and only through the rules the proxy target's bind() made.
    const rules = securityGroupRules(resources(s.statefulTemplate), port);
    const toCluster = rules.filter((r) => r.direction === 'egress' && r.from === port && r.peer.startsWith('SecurityGroupId:'));
    expect(toCluster.length).toBeGreaterThan(0);
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
      BindIngress: { Type: 'AWS::EC2::SecurityGroupIngress', Properties: { GroupId: clusterSg, SourceSecurityGroupId: proxySg, IpProtocol: 'tcp', FromPort: getAttPort, ToPort: getAttPort } },
      OurIngress: { Type: 'AWS::EC2::SecurityGroupIngress', Properties: { GroupId: clusterSg, SourceSecurityGroupId: proxySg, IpProtocol: 'tcp', FromPort: 5432, ToPort: 5432 } },
      BindEgress: { Type: 'AWS::EC2::SecurityGroupEgress', Properties: { GroupId: proxySg, DestinationSecurityGroupId: clusterSg, IpProtocol: 'tcp', FromPort: getAttPort, ToPort: getAttPort } },
    };
    expect(duplicates(securityGroupRules(before, 5432))).toEqual([
      ['ProxySg (inline)', 'BindEgress'],
      ['BindIngress', 'OurIngress'],
    ]);
    // On another port the GetAtt rules are different rules, and nothing is reported.
    expect(duplicates(securityGroupRules(before, 6543))).toEqual([]);
  });
});
