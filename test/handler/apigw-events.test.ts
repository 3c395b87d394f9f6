import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, test } from '@jest/globals';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { createServices } from '#shared/store/services.js';
import { toApiGatewayEvent } from '../../local/adapter.js';
import { createHandlers } from '../../local/handlers.js';
import { localConfig } from '../../local/stack.js';
import { createBudgetTable } from '../../local/stores.js';
import { dynamoEndpoint, manifest, readerUrl } from '../support/api.js';

/**
 * The local adapter stands in for API Gateway: its events must have the shape of recorded HTTP API
 * (payload 2.0) events, and the handlers must answer both alike.
 */
const dir = new URL('../fixtures/apigw/', import.meta.url);
const samples = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => [f, JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as APIGatewayProxyEventV2] as const);

/** The request a client sent, recovered from a recorded event. */
function rawRequest(event: APIGatewayProxyEventV2, key?: string) {
  const headers = { ...event.headers, ...(key ? { authorization: `Bearer ${key}` } : {}) };
  return {
    method: event.requestContext.http.method,
    url: event.rawPath + (event.rawQueryString ? `?${event.rawQueryString}` : ''),
    rawHeaders: Object.entries(headers).flatMap(([k, v]) => [k, v as string]),
    body: event.body ?? '',
  };
}

/** Key paths and value types, recursively: the shape a handler can rely on. */
function shape(value: unknown, at = ''): string[] {
  if (value === null || typeof value !== 'object') return [`${at}:${value === null ? 'null' : typeof value}`];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => shape(v, `${at}.${k}`));
}

const table = `geo-budget-apigw-${process.pid}`;
const services = createServices(localConfig(readerUrl(), dynamoEndpoint(), { BUDGET_TABLE: table }));
const handlers = createHandlers(services);
afterAll(() => services.close());
const context = { awsRequestId: 'test', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

describe.each(samples)('%s', (_file, recorded) => {
  test('the adapter builds an event of the same shape and values', () => {
    const { event } = toApiGatewayEvent(rawRequest(recorded));
    expect(shape(event).sort()).toEqual(shape(recorded).sort());
    for (const field of [
      'routeKey',
      'rawPath',
      'rawQueryString',
      'headers',
      'queryStringParameters',
      'pathParameters',
      'body',
      'isBase64Encoded',
    ] as const) {
      expect(event[field]).toEqual(recorded[field]);
    }
    const { http, routeKey, stage } = event.requestContext;
    expect({ method: http.method, path: http.path, routeKey, stage }).toEqual({
      method: recorded.requestContext.http.method,
      path: recorded.requestContext.http.path,
      routeKey: recorded.requestContext.routeKey,
      stage: recorded.requestContext.stage,
    });
    expect(event.requestContext.time).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
  });

  test('the handler answers the recorded event as it answers the adapter event', async () => {
    await createBudgetTable(dynamoEndpoint(), table).catch(() => undefined);
    const key = manifest.keys.workspace;
    const real = { ...recorded, headers: { ...recorded.headers, authorization: `Bearer ${key}` } };
    const { event: local, target } = toApiGatewayEvent(rawRequest(recorded, key));
    const a = await handlers[target](real, context);
    const b = await handlers[target](local, context);
    // What differs between two calls on purpose: the request id and the budget left (also in an MCP error's first line).
    const strip = (body?: string) =>
      body
        ?.replace(/request_id\\*":\\*"[0-9a-f-]{36}/g, '')
        .replace(/remaining\\*":\d+/g, '')
        .replace(/Request id: [0-9a-f-]{36}/g, '')
        .replace(/Calls left this minute: \d+/g, '');
    expect(a.statusCode).toBe(b.statusCode);
    expect(strip(a.body)).toBe(strip(b.body));
    expect(Object.keys(a.headers ?? {}).sort()).toEqual(Object.keys(b.headers ?? {}).sort());
  });
});
