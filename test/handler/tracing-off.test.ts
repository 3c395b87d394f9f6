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
import { dynamoEndpoint, manifest, readerUrl } from '../support/api.js';

/**
 * A stage with tracing switched off (the CDK app sets POWERTOOLS_TRACE_DISABLED=true) on a Lambda that
 * otherwise looks traced, daemon and sampled header included: the call is served, nothing reaches the
 * daemon, and neither Powertools' tracer nor aws-xray-sdk-core is ever loaded.
 */
const ROOT = '1-67a1b2c3-89abcdef0123456789abcdef';
const PARENT = '7d3f9a0b1c2e4f56';
const daemon = createSocket('udp4');
const received: string[] = [];
const saved = { ...process.env };
const LAMBDA_ENV = [
  'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_EXECUTION_ENV',
  'LAMBDA_TASK_ROOT',
  'AWS_XRAY_DAEMON_ADDRESS',
  '_X_AMZN_TRACE_ID',
  'POWERTOOLS_TRACE_DISABLED',
];
let services: Services;

beforeAll(async () => {
  daemon.on('message', (msg) => received.push(msg.toString('utf8')));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    AWS_LAMBDA_FUNCTION_NAME: 'geo-figures',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    LAMBDA_TASK_ROOT: '/var/task',
    AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
    _X_AMZN_TRACE_ID: `Root=${ROOT};Parent=${PARENT};Sampled=1`,
    POWERTOOLS_TRACE_DISABLED: 'true',
  });
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

describe('tracing switched off', () => {
  test('a sampled call is served, sends nothing, and loads no tracer', async () => {
    const { event } = toApiGatewayEvent({
      method: 'GET',
      url: `/api/v1/analyses/${manifest.analyses.collected}/metrics`,
      rawHeaders: ['authorization', `Bearer ${manifest.keys.workspace}`],
      body: '',
    });
    const handler = restHandler(readsByFamily.figures, services) as unknown as LambdaHandler;
    const res = (await handler(event, {
      awsRequestId: 'trace-off-test',
      getRemainingTimeInMillis: () => 10_000,
    } as unknown as Context)) as APIGatewayProxyStructuredResultV2;
    expect(res.statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(received).toEqual([]);
    expect(tracerLoaded()).toBe(false);
    // What aws-xray-sdk-core's context tracking (cls-hooked) registers on `process` when it loads.
    expect((process as unknown as { namespaces?: Record<string, unknown> }).namespaces?.AWSXRay).toBeUndefined();
  });
});
