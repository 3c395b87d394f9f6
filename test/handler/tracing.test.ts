import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { readsByFamily } from '#shared/reads/registry.js';
import { restHandler } from '#shared/rest/handler.js';
import { createServices, type Services } from '#shared/store/services.js';
import { tracerLoaded } from '#shared/store/trace.js';
import { type LambdaHandler, toApiGatewayEvent } from '../../local/adapter.js';
import { freshTableName, localConfig } from '../../local/stack.js';
import { createBudgetTable } from '../../local/stores.js';
import { awayFromMinuteEdge, dynamoEndpoint, manifest, readerUrl } from '../support/api.js';

/**
 * The real chain on a recorded API Gateway event, in a process that looks like Lambda with active tracing
 * (AWS_LAMBDA_FUNCTION_NAME, AWS_EXECUTION_ENV and LAMBDA_TASK_ROOT, which Powertools' tracer and
 * aws-xray-sdk-core read to act as on Lambda, AWS_XRAY_DAEMON_ADDRESS, the invocation's _X_AMZN_TRACE_ID),
 * the daemon a real UDP socket: each of the call's round trips reaches it, sent by the SDK, as a
 * subsegment of the invocation.
 */
const ROOT = '1-67a1b2c3-89abcdef0123456789abcdef';
const PARENT = '7d3f9a0b1c2e4f56';
const daemon = createSocket('udp4');
const received: Array<Record<string, unknown>> = [];
const saved = { ...process.env };
const LAMBDA_ENV = ['AWS_LAMBDA_FUNCTION_NAME', 'AWS_EXECUTION_ENV', 'LAMBDA_TASK_ROOT', 'AWS_XRAY_DAEMON_ADDRESS', '_X_AMZN_TRACE_ID'];
let services: Services;

beforeAll(async () => {
  daemon.on('message', (msg) => {
    const [header, body] = msg.toString('utf8').split('\n');
    expect(JSON.parse(header!)).toEqual({ format: 'json', version: 1 });
    received.push(JSON.parse(body!));
  });
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  // Read once, at the first span (shared/config/tracing.ts): set before any call runs.
  process.env.AWS_LAMBDA_FUNCTION_NAME = 'geo-figures';
  process.env.AWS_EXECUTION_ENV = 'AWS_Lambda_nodejs24.x';
  process.env.LAMBDA_TASK_ROOT = '/var/task';
  process.env.AWS_XRAY_DAEMON_ADDRESS = `127.0.0.1:${daemon.address().port}`;
  const table = freshTableName();
  await createBudgetTable(dynamoEndpoint(), table);
  services = createServices(localConfig(readerUrl(), dynamoEndpoint(), { BUDGET_TABLE: table, LOG_LEVEL: 'SILENT' }));
});

afterAll(async () => {
  await services.close();
  daemon.close();
  for (const name of LAMBDA_ENV)
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
});

async function invoke(
  path: string,
  traceHeader: string,
  key: string = manifest.keys.workspace,
  through: Services = services,
): Promise<APIGatewayProxyStructuredResultV2> {
  process.env._X_AMZN_TRACE_ID = traceHeader;
  const { event } = toApiGatewayEvent({
    method: 'GET',
    url: `/api/v1${path}`,
    rawHeaders: ['authorization', `Bearer ${key}`],
    body: '',
  });
  const handler = restHandler(readsByFamily.figures, through) as unknown as LambdaHandler;
  return handler(event, { awsRequestId: 'trace-test', getRemainingTimeInMillis: () => 10_000 } as unknown as Context);
}

async function spans(count: number): Promise<Array<Record<string, unknown>>> {
  for (let i = 0; i < 200 && received.length < count; i++) await new Promise((r) => setTimeout(r, 10));
  // Anything beyond `count` would arrive as promptly; give it the same chance before looking.
  await new Promise((r) => setTimeout(r, 50));
  return received.splice(0, received.length);
}

describe('X-Ray spans of a served call', () => {
  test('caller, budget, data: one subsegment each, in that order, under the invocation, within the call', async () => {
    const t0 = Date.now() / 1000;
    const res = await invoke(`/analyses/${manifest.analyses.collected}/metrics`, `Root=${ROOT};Parent=${PARENT};Sampled=1`);
    const t1 = Date.now() / 1000;
    expect(res.statusCode).toBe(200);
    const docs = await spans(3);
    expect(docs.map((d) => d.name)).toEqual(['caller', 'budget', 'data']);
    expect(tracerLoaded()).toBe(true);
    let previousEnd = t0 - 0.001;
    for (const d of docs) {
      expect(d).toMatchObject({ trace_id: ROOT, parent_id: PARENT, type: 'subsegment' });
      expect(d.fault).toBeUndefined();
      expect(d.error).toBeUndefined();
      expect(d.start_time as number).toBeGreaterThanOrEqual(previousEnd - 0.001);
      expect(d.end_time as number).toBeGreaterThanOrEqual(d.start_time as number);
      previousEnd = d.end_time as number;
    }
    expect(previousEnd).toBeLessThanOrEqual(t1 + 0.001);
    expect(new Set(docs.map((d) => d.id)).size).toBe(3);
  });

  test('an invocation X-Ray did not sample sends nothing, and is served the same', async () => {
    const res = await invoke(`/analyses/${manifest.analyses.collected}/metrics`, `Root=${ROOT};Parent=${PARENT};Sampled=0`);
    expect(res.statusCode).toBe(200);
    expect(await spans(0)).toEqual([]);
  });

  test('past the budget (429): caller served, budget marked error, no data span', async () => {
    await awayFromMinuteEdge();
    const header = `Root=${ROOT};Parent=${PARENT};Sampled=1`;
    const path = `/analyses/${manifest.analyses.small_budget}/metrics`;
    // The small_budget key's plan allows 5 calls a minute, on this file's own budget table.
    for (let i = 0; i < 5; i++) expect((await invoke(path, header, manifest.keys.small_budget)).statusCode).toBe(200);
    await spans(15);
    const res = await invoke(path, header, manifest.keys.small_budget);
    expect(res.statusCode).toBe(429);
    const docs = await spans(2);
    expect(docs.map((d) => [d.name, d.parent_id, d.fault ?? false, d.error ?? false])).toEqual([
      ['caller', PARENT, false, false],
      ['budget', PARENT, false, true],
    ]);
  });

  test('the budget counter failing (503): budget marked fault', async () => {
    const broken = createServices(
      localConfig(readerUrl(), dynamoEndpoint(), { BUDGET_TABLE: `${freshTableName()}-absent`, LOG_LEVEL: 'SILENT' }),
    );
    try {
      const res = await invoke(
        `/analyses/${manifest.analyses.collected}/metrics`,
        `Root=${ROOT};Parent=${PARENT};Sampled=1`,
        undefined,
        broken,
      );
      expect(res.statusCode).toBe(503);
      const docs = await spans(2);
      expect(docs.map((d) => [d.name, d.parent_id, d.fault ?? false, d.error ?? false])).toEqual([
        ['caller', PARENT, false, false],
        ['budget', PARENT, true, false],
      ]);
    } finally {
      await broken.close();
    }
  });
});
