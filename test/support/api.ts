import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { expect } from '@jest/globals';
import type { z } from 'zod';
import type { DemoManifest } from '#shared/admin/demo.js';
import type { Config } from '#shared/config/service.js';
import { freshTableName, type LocalApi, localConfig, startApi } from '../../local/stack.js';
import { createBudgetTable } from '../../local/stores.js';
import { expectMatchesOpenApi, warmOpenApiValidators } from './openapi.js';

export const manifest: DemoManifest = JSON.parse(process.env.TEST_MANIFEST ?? 'null');
export const readerUrl = (): string => process.env.TEST_READER_URL as string;
export const dynamoEndpoint = (): string => process.env.TEST_DYNAMODB_ENDPOINT as string;

/**
 * The local stack's configuration for a test's own API: quiet logs, and the budget's bound raised. Its
 * deployed bound (1 s) is for a warm Lambda; under a full parallel test run on two cores dynalite can take
 * longer, and a test that is not about the budget must not read a 503 it did not ask for. Tests about the
 * bound set BUDGET_TIMEOUT_MS themselves. `overrides` are environment values (see shared/config/service.ts).
 */
export function testConfig(reader: string, overrides: Record<string, string> = {}): Config {
  return localConfig(reader, dynamoEndpoint(), { LOG_LEVEL: 'ERROR', BUDGET_TIMEOUT_MS: '5000', ...overrides });
}

/**
 * An API on top of the shared stores, with its own budget table so that files do not spend each
 * other's budget.
 */
export async function startTestApi(overrides: Record<string, string> = {}): Promise<LocalApi> {
  // Before any request is in flight, so call()'s checks never compile inside a burst (see openapi.ts).
  warmOpenApiValidators();
  const table = overrides.BUDGET_TABLE ?? freshTableName();
  if (!overrides.DYNAMODB_ENDPOINT) await createBudgetTable(dynamoEndpoint(), table);
  return startApi(testConfig(readerUrl(), { ...overrides, BUDGET_TABLE: table }));
}

/** How many budget counter items (not the free-message bound's) a budget table of the shared dynalite holds. */
export async function budgetItems(table: string): Promise<number> {
  const client = new DynamoDBClient({
    endpoint: dynamoEndpoint(),
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    return (
      (
        await client.send(
          new ScanCommand({
            TableName: table,
            FilterExpression: 'begins_with(pk, :budget)',
            ExpressionAttributeValues: { ':budget': { S: 'budget#' } },
          }),
        )
      ).Count ?? 0
    );
  } finally {
    client.destroy();
  }
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** Lambda's synchronous response limit. */
export const LAMBDA_LIMIT = 6 * 1024 * 1024;

/** What the Lambda function would return for this reply: API Gateway's payload 2.0 result, as JSON. */
export const lambdaBytes = (reply: Reply): number =>
  Buffer.byteLength(JSON.stringify({ statusCode: reply.status, headers: Object.fromEntries(reply.headers), body: reply.text }));

export async function call(api: LocalApi, path: string, key?: string | null, init: RequestInit = {}): Promise<Reply> {
  const headers = new Headers(init.headers);
  if (key) headers.set('authorization', `Bearer ${key}`);
  const res = await fetch(`${api.baseUrl}${path}`, { ...init, headers });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const reply = { status: res.status, headers: res.headers, text, body };
  // Every reply of every integration test is checked against the OpenAPI document (status, headers, body).
  expectMatchesOpenApi(init.method ?? 'GET', path, reply);
  return reply;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * docs/contract.md#error-body and #response-headers on a refusal: the envelope, the request id twice, the
 * stated budget headers.
 */
export function expectError(reply: Reply, status: number, code: string, opts: { param?: string; budget?: boolean } = {}): void {
  expect({ status: reply.status, code: reply.body?.error?.code }).toEqual({ status, code });
  const requestId = reply.headers.get('x-request-id');
  expect(requestId).toMatch(UUID);
  expect(reply.body.error.request_id).toBe(requestId);
  expect(typeof reply.body.error.message).toBe('string');
  expect(Object.keys(reply.body)).toEqual(['error']);
  if (opts.param !== undefined) expect(reply.body.error.param).toBe(opts.param);
  expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(reply.headers.get('cache-control')).toBe('no-store');
  if (opts.budget === false) {
    expect(reply.headers.get('x-ratelimit-limit')).toBeNull();
    expect(reply.headers.get('x-ratelimit-remaining')).toBeNull();
    expect(reply.headers.get('x-ratelimit-reset')).toBeNull();
  } else if (opts.budget === true) {
    expect(reply.headers.get('x-ratelimit-limit')).not.toBeNull();
  }
}

/** A served 200 whose body validates against the read's response schema. */
export function expectServed<T extends z.ZodType>(reply: Reply, schema: T): z.infer<T> {
  if (reply.status !== 200) throw new Error(`expected 200, got ${reply.status}: ${reply.text}`);
  expect(reply.headers.get('x-request-id')).toMatch(UUID);
  expect(reply.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  expect(reply.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  expect(reply.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
  expect(reply.headers.get('cache-control')).toBe('no-store');
  const parsed = schema.safeParse(reply.body);
  if (!parsed.success) throw new Error(`response does not match its schema: ${parsed.error.message}`);
  return parsed.data;
}

/** Waits until at least `margin` seconds remain in the UTC minute, so a budget test sits in one minute. */
export async function awayFromMinuteEdge(margin = 15): Promise<void> {
  const left = 60 - (new Date().getUTCSeconds() + new Date().getUTCMilliseconds() / 1000);
  if (left < margin) await new Promise((r) => setTimeout(r, left * 1000 + 200));
}
