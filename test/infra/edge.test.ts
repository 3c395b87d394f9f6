import { beforeAll, describe, expect, it } from '@jest/globals';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { resources, type Synthesized, synth } from './support.js';

const ENV = { account: '111111111111', region: 'eu-west-1' };
/** AWS managed policies, by their documented ids. */
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

const withEdge = (edge: Record<string, unknown> = {}) => ({ stages: { dev: { edge: { enabled: true, ...edge } } } });
type Json = Record<string, any>;

function webAcl(s: Synthesized): Json {
  const acls = Object.values(resources(Template.fromStack(s.edge!), 'AWS::WAFv2::WebACL'));
  expect(acls).toHaveLength(1);
  return acls[0]!.Properties!;
}
function distribution(s: Synthesized): Json {
  const all = Object.values(resources(s.statelessTemplate, 'AWS::CloudFront::Distribution'));
  expect(all).toHaveLength(1);
  return all[0]!.Properties!.DistributionConfig as Json;
}

describe('edge: CloudFront with a WAF rate limit per client address (opt-in)', () => {
  let on: Synthesized;
  beforeAll(() => {
    on = synth(withEdge(), ENV);
  });

  it('is off unless the stage asks for it: no distribution, no web ACL, no us-east-1 stack', () => {
    const off = synth({}, ENV);
    expect(off.edge).toBeUndefined();
    off.statelessTemplate.resourceCountIs('AWS::CloudFront::Distribution', 0);
    expect(off.app.node.children.filter((c) => Stack.isStack(c)).map((c) => c.node.id)).toEqual([
      'GeoApi-dev-stateful',
      'GeoApi-dev-stateless',
    ]);
  });

  it('puts the web ACL (scope CLOUDFRONT) in a stack of its own in us-east-1, which the stateless stack depends on', () => {
    expect(on.edge!.stackName).toBe('GeoApi-dev-edge');
    expect(on.edge!.region).toBe('us-east-1');
    expect(on.edge!.account).toBe('111111111111');
    expect(on.stateless.dependencies).toContain(on.edge);
    expect(webAcl(on)).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} } });
  });

  it('blocks more than 1,200 requests per client address per minute with 429, Retry-After and the gateway throttle body', () => {
    const acl = webAcl(on);
    const rate = (acl.Rules as Json[]).find((r) => r.Name === 'RatePerClientAddress')!;
    expect(rate.Statement).toEqual({ RateBasedStatement: { AggregateKeyType: 'IP', Limit: 1200, EvaluationWindowSec: 60 } });
    expect(rate.Action).toEqual({
      Block: {
        CustomResponse: {
          ResponseCode: 429,
          CustomResponseBodyKey: 'TooManyRequests',
          ResponseHeaders: [{ Name: 'Retry-After', Value: '60' }],
        },
      },
    });
    expect(acl.CustomResponseBodies.TooManyRequests).toEqual({
      ContentType: 'APPLICATION_JSON',
      Content: '{"message":"Too Many Requests"}',
    });
    expect(JSON.parse(acl.CustomResponseBodies.TooManyRequests.Content)).toEqual({ message: 'Too Many Requests' });
    for (const rule of acl.Rules as Json[])
      expect(rule.VisibilityConfig).toMatchObject({ CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true });
  });

  it('adds the AWS managed IP reputation and known-bad-inputs groups before the rate rule, not the core rule set; both optional', () => {
    const names = (acl: Json) => (acl.Rules as Json[]).sort((a, b) => a.Priority - b.Priority).map((r) => r.Name);
    expect(names(webAcl(on))).toEqual([
      'AWSManagedRulesAmazonIpReputationList',
      'AWSManagedRulesKnownBadInputsRuleSet',
      'RatePerClientAddress',
    ]);
    for (const rule of (webAcl(on).Rules as Json[]).filter((r) => r.Statement.ManagedRuleGroupStatement)) {
      expect(rule.Statement.ManagedRuleGroupStatement.VendorName).toBe('AWS');
      expect(rule.OverrideAction).toEqual({ None: {} });
    }
    const bare = synth(withEdge({ managedRules: false, ratePerAddress: 300, rateWindowSeconds: 300 }), ENV);
    expect(names(webAcl(bare))).toEqual(['RatePerClientAddress']);
    const rate = (webAcl(bare).Rules as Json[])[0]!;
    expect(rate.Statement.RateBasedStatement).toEqual({ AggregateKeyType: 'IP', Limit: 300, EvaluationWindowSec: 300 });
    expect(rate.Action.Block.CustomResponse.ResponseHeaders).toEqual([{ Name: 'Retry-After', Value: '300' }]);
  });

  it('the distribution carries that web ACL, read across regions from the edge stack output', () => {
    const ref = distribution(on).WebACLId['Fn::GetStackOutput'];
    expect(ref).toMatchObject({ StackName: 'GeoApi-dev-edge', Region: 'us-east-1' });
    const outputs = Template.fromStack(on.edge!).toJSON().Outputs as Record<string, { Value: unknown }>;
    const [aclId] = Object.keys(resources(Template.fromStack(on.edge!), 'AWS::WAFv2::WebACL'));
    expect(outputs[ref.OutputName]!.Value).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
  });

  it('forwards every request to the HTTP API unchanged: no caching, all viewer headers and query strings but Host, HTTPS only', () => {
    const d = distribution(on);
    const behavior = d.DefaultCacheBehavior;
    expect(behavior.CachePolicyId).toBe(CACHING_DISABLED);
    expect(behavior.OriginRequestPolicyId).toBe(ALL_VIEWER_EXCEPT_HOST_HEADER);
    expect(behavior.AllowedMethods).toEqual(expect.arrayContaining(['GET', 'HEAD', 'OPTIONS', 'POST']));
    expect(behavior.ViewerProtocolPolicy).toBe('https-only');
    expect(behavior.Compress).toBe(false);
    expect(behavior.ForwardedValues).toBeUndefined();
    expect(d.DefaultCacheBehavior.TargetOriginId).toBe(d.Origins[0].Id);
    expect(d.Origins).toHaveLength(1);
    const [apiId] = Object.keys(resources(on.statelessTemplate, 'AWS::ApiGatewayV2::Api'));
    expect(d.Origins[0].DomainName).toEqual({ 'Fn::Join': ['', [{ Ref: apiId }, '.execute-api.eu-west-1.', { Ref: 'AWS::URLSuffix' }]] });
    // One second past the 29 s integration timeout: the API's own 503 reaches the caller, not CloudFront's 504.
    expect(d.Origins[0].CustomOriginConfig).toEqual({
      OriginProtocolPolicy: 'https-only',
      OriginSSLProtocols: ['TLSv1.2'],
      OriginReadTimeout: 30,
    });
    const outputs = on.statelessTemplate.toJSON().Outputs;
    const [distributionId] = Object.keys(resources(on.statelessTemplate, 'AWS::CloudFront::Distribution'));
    expect(outputs.EdgeUrl.Value).toEqual({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/api/v1']] });
  });

  it('leaves the execute-api endpoint on: it is the distribution origin (docs/operating.md#edge-protection)', () => {
    const api = Object.values(resources(on.statelessTemplate, 'AWS::ApiGatewayV2::Api'))[0]!;
    expect(api.Properties!.DisableExecuteApiEndpoint).toBeUndefined();
    expect(on.statelessTemplate.toJSON().Outputs.ApiUrl).toBeDefined();
  });

  it('cdk-nag finds nothing unacknowledged with the edge on (dev, prod with readers)', () => {
    expect(() =>
      synth({ stage: 'prod', alarmEmail: 'geo-oncall@measurement-ops.net', stages: { prod: { edge: { enabled: true } } } }, ENV),
    ).not.toThrow();
  });

  it('a stage in us-east-1 gets the same edge stack, read within the region', () => {
    const east = synth(withEdge(), { account: '111111111111', region: 'us-east-1' });
    expect(east.edge!.region).toBe('us-east-1');
    expect(distribution(east).WebACLId['Fn::GetStackOutput']).toMatchObject({ StackName: 'GeoApi-dev-edge', Region: 'us-east-1' });
  });

  it('refuses to synthesize without a known stage region, and refuses rates and windows WAF does not accept', () => {
    expect(() => synth(withEdge(), { account: '111111111111' })).toThrow(/edge.enabled needs the stage's region at synth/);
    expect(() => synth(withEdge({ ratePerAddress: 5 }), ENV)).toThrow(/edge.ratePerAddress/);
    expect(() => synth(withEdge({ rateWindowSeconds: 30 }), ENV)).toThrow(/edge.rateWindowSeconds/);
  });
});
