import { describe, expect, it } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { resources, synth } from './support.js';

describe('API stage, alarms and metric filters', () => {
  const dev = synth();
  const t = dev.statelessTemplate;

  it('stage $default with access logs and a throttling backstop', () => {
    t.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('\\$context.requestId') },
      DefaultRouteSettings: { ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() },
    });
  });

  it('integrations use payload format 2.0', () => {
    for (const i of Object.values(resources(t, 'AWS::ApiGatewayV2::Integration'))) {
      expect(i.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
    }
  });

  it('metric filters count rate_limit_unavailable and upstream_timeout from every function log', () => {
    const filters = Object.values(resources(t, 'AWS::Logs::MetricFilter')).map((f) => f.Properties!);
    const fnCount = Object.keys(resources(t, 'AWS::Lambda::Function')).length;
    for (const [code, metric] of [
      ['rate_limit_unavailable', 'BudgetStoreErrors'],
      ['upstream_timeout', 'UpstreamTimeouts'],
    ] as const) {
      const mine = filters.filter((f) => f.FilterPattern === `{ $.error_code = "${code}" }`);
      expect(mine).toHaveLength(fnCount);
      for (const f of mine) expect((f.MetricTransformations as Array<{ MetricName: string }>)[0]!.MetricName).toBe(metric);
    }
  });

  it('five alarms: 5xx rate, p95 latency, throttles, budget-store errors, upstream timeouts', () => {
    const alarms = Object.values(resources(t, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties!);
    expect(alarms).toHaveLength(5);
    const json = JSON.stringify(alarms);
    for (const needle of ['5xx', 'p95', 'Throttles', 'BudgetStoreErrors', 'UpstreamTimeouts']) expect(json).toContain(needle);
    // dev configures no e-mail: alarms exist, with nowhere to send them.
    t.resourceCountIs('AWS::SNS::Topic', 0);
    for (const a of alarms) expect(a.AlarmActions).toBeUndefined();
  });

  it('with an alarm e-mail, an encrypted TLS-only topic receives every alarm', () => {
    const prod = synth({ stage: 'prod' }).statelessTemplate;
    prod.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
    prod.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    for (const a of Object.values(resources(prod, 'AWS::CloudWatch::Alarm'))) expect(a.Properties!.AlarmActions).toHaveLength(1);
  });

  it('an optional custom domain maps onto the same stage', () => {
    const withDomain = synth({
      stages: { dev: { domain: { name: 'api.example.com', certificateArn: 'arn:aws:acm:eu-west-1:111111111111:certificate/abc' } } },
    }).statelessTemplate;
    withDomain.hasResourceProperties('AWS::ApiGatewayV2::DomainName', { DomainName: 'api.example.com' });
    withDomain.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 1);
    t.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
  });
});
