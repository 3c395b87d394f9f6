import { describe, expect, it } from '@jest/globals';
import type { Template } from 'aws-cdk-lib/assertions';
import { countCall, logger } from '#shared/log.js';
import { COLD_START_LINE, coldStartMetric, FAULT_LINE, WIDGETS } from '../../lib/constructs/service-dashboard.js';
import { captureLogLines } from '../support/capture.js';
import { importStage, PROD, resources, synth, unreachableStoreCall } from './support.js';

interface Widget {
  type: string;
  properties: { title: string; metrics?: unknown[][]; alarms?: unknown[] };
}

/** The dashboard body, its CloudFormation tokens (region, API id, alarm ARNs) replaced by a marker so it parses. */
function dashboards(t: Template): Array<{ name: string; widgets: Widget[] }> {
  return Object.values(resources(t, 'AWS::CloudWatch::Dashboard')).map((d) => {
    const body = d.Properties!.DashboardBody as string | { 'Fn::Join': [string, unknown[]] };
    const text = typeof body === 'string' ? body : body['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : 'TOKEN')).join('');
    return { name: d.Properties!.DashboardName as string, widgets: (JSON.parse(text) as { widgets: Widget[] }).widgets };
  });
}
const byTitle = (widgets: Widget[], title: string) => widgets.find((w) => w.properties.title === title)!;
const flat = (w: Widget) => JSON.stringify(w.properties.metrics ?? []);
const env = (t: Template) =>
  Object.values(resources(t, 'AWS::Lambda::Function')).map(
    (fn) => (fn.Properties!.Environment as { Variables: Record<string, unknown> }).Variables,
  );

describe('the stage dashboard', () => {
  const dev = synth({}, { account: '111111111111', region: 'eu-west-1' });
  const [board] = dashboards(dev.statelessTemplate);

  it('one per stage, named after it, with the widgets docs/operating.md names', () => {
    expect(dashboards(dev.statelessTemplate)).toHaveLength(1);
    expect(board!.name).toBe('geo-measurement-dev');
    expect(board!.widgets.map((w) => w.properties.title)).toEqual([
      'Alarms',
      'Calls',
      'Errors by code',
      'Latency p50 / p99 by family (ms)',
      'Budget refusals',
      'Store faults',
      'Cold starts',
      'Aurora capacity (ACU)',
      'RDS Proxy connections',
    ]);
    expect(Object.values(WIDGETS)).toEqual(board!.widgets.map((w) => w.properties.title));
    const prod = dashboards(synth(PROD).statelessTemplate);
    expect(prod.map((d) => d.name)).toEqual(['geo-measurement-prod']);
  });

  it('the alarms widget shows the five alarms', () => {
    expect(byTitle(board!.widgets, WIDGETS.alarms).properties.alarms).toHaveLength(5);
    expect(Object.keys(resources(dev.statelessTemplate, 'AWS::CloudWatch::Alarm'))).toHaveLength(5);
  });

  it('calls, errors and budget refusals read the request count the functions emit, in the namespace the functions are given', () => {
    // Every function writes its EMF count into the stage's namespace, where the alarms' filters count too.
    for (const vars of env(dev.statelessTemplate)) expect(vars.POWERTOOLS_METRICS_NAMESPACE).toBe('GeoMeasurementApi/dev');
    const schema = 'SCHEMA(\\"GeoMeasurementApi/dev\\", error_code, read, service)';
    expect(flat(byTitle(board!.widgets, WIDGETS.calls))).toContain(`SELECT SUM(requests) FROM ${schema} GROUP BY read`);
    expect(flat(byTitle(board!.widgets, WIDGETS.calls))).toContain('"AWS/ApiGateway","Count"');
    expect(flat(byTitle(board!.widgets, WIDGETS.errors))).toContain(`FROM ${schema} WHERE error_code != 'none' GROUP BY error_code`);
    expect(flat(byTitle(board!.widgets, WIDGETS.budget))).toContain(`FROM ${schema} WHERE error_code = 'rate_limited'`);
    expect(flat(byTitle(board!.widgets, WIDGETS.budget))).toContain('"GeoMeasurementApi/dev","BudgetStoreErrors"');
  });

  it('the EMF line a call writes has exactly the dimensions and metric the queries name', async () => {
    logger.setLogLevel('INFO');
    let lines: Array<Record<string, any>>;
    try {
      lines = await captureLogLines(async () => countCall('metrics', 'rate_limited'));
    } finally {
      logger.setLogLevel((process.env.LOG_LEVEL ?? 'SILENT') as 'SILENT');
    }
    const emf = lines.find((l) => '_aws' in l)!;
    const directive = emf._aws.CloudWatchMetrics[0];
    expect(directive.Dimensions).toEqual([['service', 'read', 'error_code']]);
    expect(directive.Metrics).toEqual([{ Name: 'requests', Unit: 'Count' }]);
    expect(emf).toMatchObject({ read: 'metrics', error_code: 'rate_limited', requests: 1 });
  });

  it('latency p50 and p99 of each family, from Lambda itself', () => {
    const latency = flat(byTitle(board!.widgets, WIDGETS.latency));
    for (const family of ['identity', 'figures', 'catalog', 'mcp', 'openapi']) {
      expect(latency).toContain(`"label":"${family} p50"`);
      expect(latency).toContain(`"label":"${family} p99"`);
    }
    expect(latency.match(/"AWS\/Lambda","Duration"/g)).toHaveLength(10);
  });

  it('store faults by class and cold starts per function, counted by filters on every function log', () => {
    const filters = Object.values(resources(dev.statelessTemplate, 'AWS::Logs::MetricFilter')).map((f) => f.Properties!);
    const fnCount = Object.keys(resources(dev.statelessTemplate, 'AWS::Lambda::Function')).length;
    const faults = filters.filter((f) => f.FilterPattern === '{ $.message = "fault" }');
    expect(faults).toHaveLength(fnCount);
    for (const f of faults) {
      expect(f.MetricTransformations).toEqual([
        {
          MetricNamespace: 'GeoMeasurementApi/dev',
          MetricName: 'Faults',
          MetricValue: '1',
          Dimensions: [{ Key: 'fault', Value: '$.cause.fault' }],
        },
      ]);
    }
    const cold = filters.filter((f) => f.FilterPattern === '"REPORT" "Init Duration"');
    expect(cold.map((f) => (f.MetricTransformations as Array<{ MetricName: string }>)[0]!.MetricName).sort()).toEqual([
      'ColdStartsCatalog',
      'ColdStartsFigures',
      'ColdStartsIdentity',
      'ColdStartsMcp',
      'ColdStartsOpenapi',
    ]);
    expect(flat(byTitle(board!.widgets, WIDGETS.faults))).toContain(
      `SEARCH('{GeoMeasurementApi/dev,fault} MetricName=\\"Faults\\"', 'Sum', 300)`,
    );
    expect(flat(byTitle(board!.widgets, WIDGETS.faults))).toContain('"GeoMeasurementApi/dev","UpstreamTimeouts"');
    for (const target of ['identity', 'figures', 'catalog', 'mcp', 'openapi'])
      expect(flat(byTitle(board!.widgets, WIDGETS.coldStarts))).toContain(`"GeoMeasurementApi/dev","${coldStartMetric(target)}"`);
  });

  it("a real store fault's line is what the fault filter counts, and its class is where the dimension reads it", async () => {
    const { lines } = await unreachableStoreCall('fault-filter');
    expect(FAULT_LINE.logPatternString).toBe('{ $.message = "fault" }');
    const faults = lines.filter((l) => l.message === 'fault');
    expect(faults).toHaveLength(1);
    expect(faults[0]!.cause.fault).toBe('unavailable');
  });

  it("the cold-start filter's terms are in Lambda's REPORT line of a cold start only", () => {
    expect(COLD_START_LINE.logPatternString).toBe('"REPORT" "Init Duration"');
    // The REPORT lines of Lambda's text log format, as docs.aws.amazon.com/lambda/latest/dg/nodejs-logging.html shows them.
    const cold =
      'REPORT RequestId: 8f5f7b2a-1d2c-4a0f-9d2e-3c4b5a6f7e8d\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 512 MB\tMax Memory Used: 92 MB\tInit Duration: 231.56 ms\t';
    const warm =
      'REPORT RequestId: 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d\tDuration: 3.10 ms\tBilled Duration: 4 ms\tMemory Size: 512 MB\tMax Memory Used: 93 MB\t';
    const terms = ['REPORT', 'Init Duration'];
    expect(terms.every((t) => cold.includes(t))).toBe(true);
    expect(terms.every((t) => warm.includes(t))).toBe(false);
  });

  it('Aurora capacity and the proxy connections name the stage cluster and proxy (created, or imported)', () => {
    const aurora = flat(byTitle(board!.widgets, WIDGETS.aurora));
    expect(aurora).toContain('"AWS/RDS","ServerlessDatabaseCapacity","DBClusterIdentifier","geo-measurement-dev"');
    const [proxy] = Object.values(resources(dev.statefulTemplate, 'AWS::RDS::DBProxy'));
    const proxyName = proxy!.Properties!.DBProxyName as string;
    for (const metric of ['DatabaseConnections', 'ClientConnections', 'DatabaseConnectionsCurrentlySessionPinned'])
      expect(flat(byTitle(board!.widgets, WIDGETS.proxy))).toContain(`"AWS/RDS","${metric}","ProxyName","${proxyName}"`);
    const imported = dashboards(synth({ stages: { dev: importStage } }).statelessTemplate)[0]!;
    expect(flat(byTitle(imported.widgets, WIDGETS.aurora))).toContain('"DBClusterIdentifier","existing-measurements"');
  });

  it.each([
    ['cdk.json', { stages: { dev: { dashboard: false } } }],
    ['-c dashboard=false', { dashboard: 'false' }],
  ])('switched off (%s): no dashboard, and none of its filters', (_how, context) => {
    const off = synth(context).statelessTemplate;
    off.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
    const patterns = Object.values(resources(off, 'AWS::Logs::MetricFilter')).map((f) => f.Properties!.FilterPattern);
    expect(patterns.filter((p) => p === '{ $.message = "fault" }' || p === '"REPORT" "Init Duration"')).toEqual([]);
    // The alarms stay: the dashboard only shows them.
    off.resourceCountIs('AWS::CloudWatch::Alarm', 5);
  });
});
