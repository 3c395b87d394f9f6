import { describe, expect, it } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { ALARM_ADDRESS, PROD, resources, synth, unreachableStoreCall } from './support.js';

/**
 * CloudWatch's JSON filter syntax, for the one form our filters use: terms `$.field = "value"`, joined
 * by && (refuses anything else, so a filter written differently cannot pass unread).
 */
function matches(pattern: string, line: Record<string, unknown>): boolean {
  const body = pattern.trim().replace(/^\{/, '').replace(/\}$/, '');
  const terms = body.split('&&').map((t) => t.trim().replace(/^\(/, '').replace(/\)$/, '').trim());
  return terms.every((term) => {
    const m = /^\$\.([A-Za-z_][\w.]*)\s*=\s*"([^"]*)"$/.exec(term);
    if (!m) throw new Error(`filter term not understood: ${term}`);
    const value = m[1]!.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], line);
    return value === m[2];
  });
}

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
      const mine = filters.filter((f) => f.FilterPattern === `{ ($.message = "request") && ($.error_code = "${code}") }`);
      expect(mine).toHaveLength(fnCount);
      for (const f of mine) expect((f.MetricTransformations as Array<{ MetricName: string }>)[0]!.MetricName).toBe(metric);
    }
  });

  it('each error is counted once: the filters match the request line, not the EMF line of the same call', async () => {
    // A real call that ends in 503 upstream_timeout (nothing listens on the store's port), at LOG_LEVEL INFO
    // as deployed, so the function writes both its request line and its EMF line.
    const { reply, lines } = await unreachableStoreCall('filter-test');
    expect(JSON.parse(reply.body as string).error.code).toBe('upstream_timeout');
    // Both lines carry error_code: a filter on error_code alone counted this call twice.
    expect(lines.filter((l) => l.error_code === 'upstream_timeout')).toHaveLength(2);
    expect(lines.some((l) => '_aws' in l)).toBe(true);

    const filters = Object.values(resources(t, 'AWS::Logs::MetricFilter')).map((f) => f.Properties!);
    const upstream = filters.filter(
      (f) => (f.MetricTransformations as Array<{ MetricName: string }>)[0]!.MetricName === 'UpstreamTimeouts',
    );
    const budget = filters.filter((f) => (f.MetricTransformations as Array<{ MetricName: string }>)[0]!.MetricName === 'BudgetStoreErrors');
    expect(upstream.length).toBeGreaterThan(0);
    for (const f of upstream) {
      const hit = lines.filter((l) => matches(f.FilterPattern as string, l));
      expect(hit).toHaveLength(1);
      expect(hit[0]!.message).toBe('request');
    }
    for (const f of budget) expect(lines.filter((l) => matches(f.FilterPattern as string, l))).toHaveLength(0);
    expect(lines.filter((l) => matches('{ $.error_code = "upstream_timeout" }', l))).toHaveLength(2);
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
    const prod = synth(PROD).statelessTemplate;
    prod.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: ALARM_ADDRESS });
    prod.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    for (const a of Object.values(resources(prod, 'AWS::CloudWatch::Alarm'))) expect(a.Properties!.AlarmActions).toHaveLength(1);
  });

  it("the topic key admits CloudWatch only on behalf of this account's alarms (no confused deputy)", () => {
    const prod = synth(PROD, { account: '111111111111', region: 'eu-west-1' }).statelessTemplate;
    const keys = Object.values(resources(prod, 'AWS::KMS::Key'));
    expect(keys).toHaveLength(1);
    const statements = (keys[0]!.Properties!.KeyPolicy as { Statement: Array<Record<string, any>> }).Statement;
    const forCloudWatch = statements.filter((st) => JSON.stringify(st.Principal).includes('cloudwatch.amazonaws.com'));
    expect(forCloudWatch).toHaveLength(1);
    expect(forCloudWatch[0]).toMatchObject({
      Effect: 'Allow',
      Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      Condition: {
        StringEquals: { 'aws:SourceAccount': '111111111111' },
        ArnLike: { 'aws:SourceArn': 'arn:aws:cloudwatch:eu-west-1:111111111111:alarm:*' },
      },
    });
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
