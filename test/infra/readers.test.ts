import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Template } from 'aws-cdk-lib/assertions';
import { PROD, resources, type Synthesized, synth } from './support.js';

const ENV = { account: '111111111111', region: 'eu-west-1' };
type Json = Record<string, unknown>;

/** What a stateless value refers to in the stateful stack: the Value of the output Fn::GetStackOutput names. */
function producerValue(s: Synthesized, value: unknown): unknown {
  const ref = (value as Json)['Fn::GetStackOutput'] as { StackName: string; OutputName: string } | undefined;
  if (!ref) return value;
  expect(ref.StackName).toBe(s.stateful.stackName);
  const outputs = s.statefulTemplate.toJSON().Outputs as Record<string, { Value: unknown }>;
  return outputs[ref.OutputName]!.Value;
}

const serviceFunctions = (t: Template) =>
  Object.entries(resources(t, 'AWS::Lambda::Function')).filter(([id]) => /^(Identity|Figures|Catalog|Mcp)Fn/.test(id));
const envOf = (fn: { Properties?: Json }) => (fn.Properties!.Environment as { Variables: Record<string, unknown> }).Variables;

function readerIds(t: Template): string[] {
  return Object.entries(resources(t, 'AWS::RDS::DBInstance'))
    .filter(([id]) => id.startsWith('StoreClusterreader'))
    .map(([id]) => id);
}

describe('Aurora readers behind the proxy read-only endpoint', () => {
  let dev: Synthesized;
  let prod: Synthesized;
  let three: Synthesized;
  beforeAll(() => {
    dev = synth({}, ENV);
    prod = synth(PROD, ENV);
    three = synth({ stages: { dev: { database: { mode: 'create', readers: 3, deletionProtection: false } } } }, ENV);
  });

  it('adds as many Serverless v2 readers as the stage asks: dev none, prod one, three when set to 3; the first is the failover target', () => {
    expect(readerIds(dev.statefulTemplate)).toEqual([]);
    expect(readerIds(prod.statefulTemplate)).toHaveLength(1);
    expect(readerIds(three.statefulTemplate)).toHaveLength(3);
    const tiers = readerIds(three.statefulTemplate)
      .sort()
      .map((id) => resources(three.statefulTemplate, 'AWS::RDS::DBInstance')[id]!.Properties!);
    expect(tiers.map((p) => [p.DBInstanceClass, p.PromotionTier])).toEqual([
      ['db.serverless', 1],
      ['db.serverless', 2],
      ['db.serverless', 2],
    ]);
  });

  it('with readers, the proxy has a READ_ONLY endpoint in the proxy subnets and security group; without, none', () => {
    dev.statefulTemplate.resourceCountIs('AWS::RDS::DBProxyEndpoint', 0);
    const t = prod.statefulTemplate;
    const endpoints = Object.values(resources(t, 'AWS::RDS::DBProxyEndpoint'));
    expect(endpoints).toHaveLength(1);
    const [proxyId, proxy] = Object.entries(resources(t, 'AWS::RDS::DBProxy'))[0]!;
    const p = endpoints[0]!.Properties!;
    expect(p.TargetRole).toBe('READ_ONLY');
    expect(p.DBProxyName).toEqual({ Ref: proxyId });
    expect(p.DBProxyEndpointName).toBe('geo-measurement-prod-read-only');
    expect(p.VpcSecurityGroupIds).toEqual(proxy.Properties!.VpcSecurityGroupIds);
    expect(p.VpcSubnetIds).toEqual(proxy.Properties!.VpcSubnetIds);
    const dependsOn = (t.toJSON().Resources as Record<string, { DependsOn?: string[] }>)[
      Object.keys(resources(t, 'AWS::RDS::DBProxyEndpoint'))[0]!
    ]!.DependsOn;
    expect(dependsOn).toEqual(expect.arrayContaining(readerIds(t)));
    expect(t.toJSON().Outputs.ReadOnlyProxyEndpoint.Value).toEqual({
      'Fn::GetAtt': [Object.keys(resources(t, 'AWS::RDS::DBProxyEndpoint'))[0], 'Endpoint'],
    });
  });

  it('with readers, the service functions read through the read-only endpoint and stamp through the writer (DB_WRITER_HOST)', () => {
    const [proxyId] = Object.keys(resources(prod.statefulTemplate, 'AWS::RDS::DBProxy'));
    const [endpointId] = Object.keys(resources(prod.statefulTemplate, 'AWS::RDS::DBProxyEndpoint'));
    const fns = serviceFunctions(prod.statelessTemplate);
    expect(fns).toHaveLength(4);
    for (const [, fn] of fns) {
      const env = envOf(fn);
      expect(producerValue(prod, env.DB_HOST)).toEqual({ 'Fn::GetAtt': [endpointId, 'Endpoint'] });
      expect(producerValue(prod, env.DB_WRITER_HOST)).toEqual({ 'Fn::GetAtt': [proxyId, 'Endpoint'] });
      expect(env).toMatchObject({ DB_USER: 'geo_reader', DB_IAM_AUTH: 'true', DB_SSL: 'true' });
    }
  });

  it('without readers, DB_HOST is the proxy default endpoint and DB_WRITER_HOST is not set', () => {
    const [proxyId] = Object.keys(resources(dev.statefulTemplate, 'AWS::RDS::DBProxy'));
    for (const [, fn] of serviceFunctions(dev.statelessTemplate)) {
      const env = envOf(fn);
      expect(producerValue(dev, env.DB_HOST)).toEqual({ 'Fn::GetAtt': [proxyId, 'Endpoint'] });
      expect(env.DB_WRITER_HOST).toBeUndefined();
    }
  });

  it('the migration runner and the tunnel keep the writer: the cluster endpoint, never a proxy endpoint', () => {
    for (const s of [dev, prod]) {
      const t = s.statefulTemplate;
      const [clusterId] = Object.keys(resources(t, 'AWS::RDS::DBCluster'));
      const migrate = Object.entries(resources(t, 'AWS::Lambda::Function')).find(([id]) => id.startsWith('MigrationRunnerMigrate'))!;
      expect(envOf(migrate[1]).DB_HOST).toEqual({ 'Fn::GetAtt': [clusterId, 'Endpoint.Address'] });
      // The tunnel's host is the ClusterEndpoint output (docs/operating.md#reaching-the-database-through-a-tunnel).
      expect(t.toJSON().Outputs.ClusterEndpoint.Value).toEqual({ 'Fn::GetAtt': [clusterId, 'Endpoint.Address'] });
    }
  });

  it('rds-db:connect names the proxy resource id, which covers both endpoints, from an output the stateful stack computes', () => {
    const [proxyId] = Object.keys(resources(prod.statefulTemplate, 'AWS::RDS::DBProxy'));
    for (const [, fn] of serviceFunctions(prod.statelessTemplate)) {
      const roleId = (fn.Properties!.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
      const policy = Object.values(resources(prod.statelessTemplate, 'AWS::IAM::Policy')).find((p) =>
        (p.Properties!.Roles as Array<{ Ref: string }>).some((r) => r.Ref === roleId),
      )!;
      const statements = (policy.Properties!.PolicyDocument as { Statement: Array<{ Action: string; Resource: unknown }> }).Statement;
      const connect = statements.filter((st) => st.Action === 'rds-db:connect');
      expect(connect).toHaveLength(1);
      const [, parts] = (connect[0]!.Resource as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
      expect(parts[0]).toBe('arn:aws:rds-db:eu-west-1:111111111111:dbuser:');
      expect(parts[2]).toBe('/geo_reader');
      expect(producerValue(prod, parts[1])).toEqual({
        'Fn::Select': [6, { 'Fn::Split': [':', { 'Fn::GetAtt': [proxyId, 'DBProxyArn'] }] }],
      });
    }
  });

  it('cdk-nag finds nothing unacknowledged with readers, with or without the bastion', () => {
    expect(() => synth({ ...PROD, stages: { prod: { database: { mode: 'create', readers: 2 } } } }, ENV)).not.toThrow();
    expect(() =>
      synth({ stages: { dev: { bastion: true, database: { mode: 'create', readers: 2, deletionProtection: false } } } }, ENV),
    ).not.toThrow();
  });

  it('refuses more readers than Aurora allows', () => {
    expect(() => synth({ stages: { dev: { database: { mode: 'create', readers: 16 } } } })).toThrow(/database.readers/);
  });
});
