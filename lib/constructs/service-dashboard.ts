import { Duration } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { LOGGED_ERROR_METRICS } from './service-alarms.js';

/** Metric names of the filters this construct adds, in the stage's namespace. */
export const DASHBOARD_METRICS = {
  /** Fault lines (shared/log.ts logFault) by the class of their cause: unavailable, configuration, budget, statement. */
  faults: 'Faults',
  /** Platform REPORT lines that carry an Init Duration, one per cold start: ColdStarts<Function>. */
  coldStarts: 'ColdStarts',
} as const;

/** The title of each widget, as the dashboard shows it and docs/operating.md#the-dashboard names it. */
export const WIDGETS = {
  alarms: 'Alarms',
  calls: 'Calls',
  errors: 'Errors by code',
  latency: 'Latency p50 / p99 by family (ms)',
  budget: 'Budget refusals',
  faults: 'Store faults',
  coldStarts: 'Cold starts',
  aurora: 'Aurora capacity (ACU)',
  proxy: 'RDS Proxy connections',
} as const;

/** Matches the fault line of a refusal a fault caused (its cause classified by shared/store/faults.ts). */
export const FAULT_LINE = logs.FilterPattern.stringValue('$.message', '=', 'fault');
/** Matches Lambda's REPORT line of an invocation that began with a cold start (text log format). */
export const COLD_START_LINE = logs.FilterPattern.allTerms('REPORT', 'Init Duration');

export interface ServiceDashboardProps {
  stageName: string;
  /** Where the EMF request counts (POWERTOOLS_METRICS_NAMESPACE) and the metric filters land. */
  namespace: string;
  stage: apigwv2.HttpStage;
  /** Every function of the stage by its name (identity, figures, catalog, mcp, openapi). */
  functions: Record<string, { fn: lambda.IFunction; logGroup: logs.ILogGroup }>;
  /** The Aurora cluster identifier (created or imported), the dimension of its capacity metrics. */
  clusterIdentifier: string;
  /** The RDS Proxy's name, the dimension of its connection metrics. */
  proxyName: string;
  alarms: cloudwatch.IAlarm[];
}

/**
 * One CloudWatch dashboard per stage, on metrics that exist: API Gateway's and Lambda's own, RDS's for
 * the cluster and the proxy, the request count the functions emit as EMF (`requests` by `read` and
 * `error_code`, shared/log.ts countCall), the alarms' metric filters, and two filters of its own where
 * nothing is emitted: faults by class, and cold starts. Its widgets and where each alarm points:
 * docs/operating.md#the-dashboard.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const period = Duration.minutes(5);
    const ns = props.namespace;
    const targets = Object.keys(props.functions);

    for (const [target, { logGroup }] of Object.entries(props.functions)) {
      const Target = `${target.charAt(0).toUpperCase()}${target.slice(1)}`;
      new logs.MetricFilter(this, `${Target}FaultsFilter`, {
        logGroup,
        filterPattern: FAULT_LINE,
        metricNamespace: ns,
        metricName: DASHBOARD_METRICS.faults,
        metricValue: '1',
        dimensions: { fault: '$.cause.fault' },
      });
      new logs.MetricFilter(this, `${Target}ColdStartsFilter`, {
        logGroup,
        filterPattern: COLD_START_LINE,
        metricNamespace: ns,
        // A metric per function: a filter's dimensions come from fields of the line, and a REPORT line
        // does not name its function.
        metricName: coldStartMetric(target),
        metricValue: '1',
      });
    }

    // Metrics Insights over the EMF request count; its dimensions are those Powertools writes.
    const requests = `SCHEMA("${ns}", error_code, read, service)`;
    const insights = (label: string, where: string, groupBy?: string) =>
      new cloudwatch.MathExpression({
        expression: `SELECT SUM(requests) FROM ${requests}${where ? ` WHERE ${where}` : ''}${groupBy ? ` GROUP BY ${groupBy}` : ''}`,
        label,
        period,
      });
    const stageMetric = (metricName: string, statistic: string, label: string) =>
      new cloudwatch.Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: { ApiId: props.stage.api.apiId, Stage: props.stage.stageName },
        statistic,
        period,
        label,
      });
    const logged = (metricName: string, label: string) =>
      new cloudwatch.Metric({ namespace: ns, metricName, statistic: 'Sum', period, label });
    const rds = (metricName: string, dimensionsMap: Record<string, string>, statistic: string, label: string) =>
      new cloudwatch.Metric({ namespace: 'AWS/RDS', metricName, dimensionsMap, statistic, period, label });

    const graph = (title: string, left: cloudwatch.IMetric[], extra: Partial<cloudwatch.GraphWidgetProps> = {}) =>
      new cloudwatch.GraphWidget({ title, left, width: 12, height: 6, period, ...extra });

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `geo-measurement-${props.stageName}`,
      defaultInterval: Duration.hours(3),
    });
    // CDK tags it like every taggable L1, but AWS::CloudWatch::Dashboard takes no Tags (its registry
    // schema, which cfn-lint ships, has no such property: E3002); CloudFormation would refuse the key.
    (this.dashboard.node.defaultChild as cloudwatch.CfnDashboard).addPropertyDeletionOverride('Tags');
    this.dashboard.addWidgets(new cloudwatch.AlarmStatusWidget({ title: WIDGETS.alarms, alarms: props.alarms, width: 24, height: 3 }));
    this.dashboard.addWidgets(
      graph(WIDGETS.calls, [stageMetric('Count', 'Sum', 'API requests'), insights('', '', 'read')]),
      graph(WIDGETS.errors, [
        insights('', "error_code != 'none'", 'error_code'),
        stageMetric('4xx', 'Sum', 'API 4xx'),
        stageMetric('5xx', 'Sum', 'API 5xx'),
      ]),
    );
    this.dashboard.addWidgets(
      graph(
        WIDGETS.latency,
        Object.entries(props.functions).flatMap(([target, { fn }]) => [
          fn.metricDuration({ statistic: 'p50', period, label: `${target} p50` }),
          fn.metricDuration({ statistic: 'p99', period, label: `${target} p99` }),
        ]),
        { right: [stageMetric('Latency', 'p99', 'API p99')] },
      ),
      graph(WIDGETS.budget, [
        insights('rate_limited (429, the budget spent)', "error_code = 'rate_limited'"),
        logged(LOGGED_ERROR_METRICS.rate_limit_unavailable, 'rate_limit_unavailable (503, not counted)'),
      ]),
    );
    this.dashboard.addWidgets(
      graph(WIDGETS.faults, [
        new cloudwatch.MathExpression({
          expression: `SEARCH('{${ns},fault} MetricName="${DASHBOARD_METRICS.faults}"', 'Sum', ${period.toSeconds()})`,
          label: '',
          period,
        }),
        logged(LOGGED_ERROR_METRICS.upstream_timeout, 'upstream_timeout (503)'),
      ]),
      graph(
        WIDGETS.coldStarts,
        targets.map((target) => logged(coldStartMetric(target), target)),
      ),
    );
    this.dashboard.addWidgets(
      graph(WIDGETS.aurora, [
        rds('ServerlessDatabaseCapacity', { DBClusterIdentifier: props.clusterIdentifier }, 'Maximum', 'capacity, max (ACU)'),
        rds('ServerlessDatabaseCapacity', { DBClusterIdentifier: props.clusterIdentifier }, 'Minimum', 'capacity, min (ACU)'),
      ]),
      graph(WIDGETS.proxy, [
        rds('DatabaseConnections', { ProxyName: props.proxyName }, 'Maximum', 'to Aurora'),
        rds('ClientConnections', { ProxyName: props.proxyName }, 'Maximum', 'from the functions'),
        rds('DatabaseConnectionsCurrentlySessionPinned', { ProxyName: props.proxyName }, 'Maximum', 'pinned'),
      ]),
    );
  }
}

/** The cold-start count of one function: a metric of its own, since its REPORT lines do not name it. */
export function coldStartMetric(target: string): string {
  return `${DASHBOARD_METRICS.coldStarts}${target.charAt(0).toUpperCase()}${target.slice(1)}`;
}
