import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { StageSettings } from '../config.js';

/** error_code values the functions log (one JSON line per request) that deserve an alarm. */
export const LOGGED_ERROR_METRICS = {
  rate_limit_unavailable: 'BudgetStoreErrors',
  upstream_timeout: 'UpstreamTimeouts',
} as const;

/** Matches the one request log line of a call that ended with this error code (shared/middleware/request-log.ts). */
export function requestLineWith(code: string): logs.IFilterPattern {
  return logs.FilterPattern.all(
    logs.FilterPattern.stringValue('$.message', '=', 'request'),
    logs.FilterPattern.stringValue('$.error_code', '=', code),
  );
}

export interface ServiceAlarmsProps {
  namespace: string;
  stage: apigwv2.HttpStage;
  functions: Array<{ fn: lambda.IFunction; logGroup: logs.ILogGroup }>;
  thresholds: StageSettings['alarms'];
  alarmEmail?: string | undefined;
}

export class ServiceAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly topic?: sns.Topic;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const period = Duration.minutes(5);
    const t = props.thresholds;

    for (const [code, metricName] of Object.entries(LOGGED_ERROR_METRICS)) {
      for (const [i, { logGroup }] of props.functions.entries()) {
        // Same metric from every log group: CloudWatch sums them into one service-wide count. The request
        // line only (message "request"): the EMF line of the same call carries error_code too, as a
        // dimension, and matching it would count every error twice.
        new logs.MetricFilter(this, `${metricName}Filter${i}`, {
          logGroup,
          filterPattern: requestLineWith(code),
          metricNamespace: props.namespace,
          metricName,
          metricValue: '1',
          defaultValue: 0,
        });
      }
    }
    const logged = (metricName: string) => new cloudwatch.Metric({ namespace: props.namespace, metricName, statistic: 'Sum', period });

    const requests = props.stage.metricCount({ statistic: 'Sum', period });
    const serverErrors = props.stage.metricServerError({ statistic: 'Sum', period });
    const throttles = new cloudwatch.MathExpression({
      expression: props.functions.map((_, i) => `t${i}`).join(' + '),
      usingMetrics: Object.fromEntries(props.functions.map(({ fn }, i) => [`t${i}`, fn.metricThrottles({ statistic: 'Sum', period })])),
      period,
      label: 'Lambda throttles',
    });

    const defs: Array<[string, cloudwatch.IMetric, number, string]> = [
      [
        'ServerErrorRate',
        new cloudwatch.MathExpression({
          expression: 'IF(requests > 0, 100 * errors / requests, 0)',
          usingMetrics: { requests, errors: serverErrors },
          period,
          label: '5xx rate (%)',
        }),
        t.serverErrorRatePercent,
        'Share of 5xx responses above the threshold (percent, 5 minutes)',
      ],
      ['LatencyP95', props.stage.metricLatency({ statistic: 'p95', period }), t.p95LatencyMs, 'p95 latency above the threshold (ms)'],
      ['Throttles', throttles, t.throttles, 'Lambda throttled invocations'],
      [
        'BudgetStoreErrors',
        logged(LOGGED_ERROR_METRICS.rate_limit_unavailable),
        t.budgetStoreErrors,
        'Calls refused with 503 rate_limit_unavailable',
      ],
      ['UpstreamTimeouts', logged(LOGGED_ERROR_METRICS.upstream_timeout), t.upstreamTimeouts, 'Calls answered 503 upstream_timeout'],
    ];
    for (const [name, metric, threshold, description] of defs) {
      this.alarms.push(
        new cloudwatch.Alarm(this, name, {
          metric,
          threshold,
          evaluationPeriods: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
          alarmDescription: description,
        }),
      );
    }

    if (props.alarmEmail) {
      // A customer-managed key: CloudWatch cannot publish to a topic encrypted with the AWS-managed SNS key.
      const key = new kms.Key(this, 'TopicKey', { enableKeyRotation: true, description: 'Alarm topic encryption' });
      // Only on behalf of this account's alarms in this region: without the conditions, any account's
      // alarm pointed at this topic could have CloudWatch use the key for it (the confused deputy).
      // AWS's own constructs condition this grant the same way (grantCloudWatchAlarmsTopicAccess in
      // aws/modern-data-architecture-accelerator); a condition CloudWatch did not meet would drop e-mails.
      const stack = Stack.of(this);
      key.addToResourcePolicy(
        new iam.PolicyStatement({
          principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
          actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          resources: ['*'],
          conditions: {
            StringEquals: { 'aws:SourceAccount': stack.account },
            ArnLike: {
              'aws:SourceArn': stack.formatArn({
                service: 'cloudwatch',
                resource: 'alarm',
                resourceName: '*',
                arnFormat: ArnFormat.COLON_RESOURCE_NAME,
              }),
            },
          },
        }),
      );
      this.topic = new sns.Topic(this, 'Topic', { masterKey: key, enforceSSL: true });
      this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
      for (const alarm of this.alarms) alarm.addAlarmAction(new actions.SnsAction(this.topic));
    }
  }
}
