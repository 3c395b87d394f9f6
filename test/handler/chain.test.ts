import { afterAll, describe, expect, test } from '@jest/globals';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { readsByFamily } from '#shared/reads/registry.js';
import { restHandler } from '#shared/rest/handler.js';
import { createServices } from '#shared/store/services.js';
import { type LambdaHandler, toApiGatewayEvent } from '../../local/adapter.js';
import { freshTableName, localConfig } from '../../local/stack.js';
import { createBudgetTable } from '../../local/stores.js';
import { awayFromMinuteEdge, dynamoEndpoint, manifest, readerUrl } from '../support/api.js';

/** The real middy chain, invoked as Lambda would, without HTTP in between. */
const services = createServices(localConfig(readerUrl(), dynamoEndpoint(), { API_DISABLED: 'true', API_DISABLED_RETRY_AFTER: '120' }));
afterAll(() => services.close());

const context = { awsRequestId: 'test', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

async function invoke(
  family: 'identity' | 'figures' | 'catalog',
  path: string,
  headers: string[] = [],
): Promise<APIGatewayProxyStructuredResultV2> {
  const { event } = toApiGatewayEvent({ method: 'GET', url: `/api/v1${path}`, rawHeaders: headers, body: '' });
  const handler = restHandler(readsByFamily[family], services) as unknown as LambdaHandler;
  return handler(event, context);
}

describe('api switch on', () => {
  test.each([
    ['identity', '/me'],
    ['identity', '/analyses'],
    ['identity', '/no-such-route'],
    ['figures', `/analyses/${manifest.analyses.collected}/metrics`],
    ['catalog', `/analyses/${manifest.analyses.collected}/runs`],
  ] as const)('%s %s → 503 api_disabled with Retry-After, before any key check', async (family, path) => {
    for (const headers of [[], ['authorization', `Bearer ${manifest.keys.workspace}`]]) {
      const res = await invoke(family, path, headers);
      const body = JSON.parse(res.body as string);
      expect(res.statusCode).toBe(503);
      expect(body.error.code).toBe('api_disabled');
      expect(res.headers?.['retry-after']).toBe('120');
      expect(res.headers?.['x-request-id']).toBe(body.error.request_id);
      expect(res.headers?.['x-ratelimit-limit']).toBeUndefined();
      expect(res.headers?.['cache-control']).toBe('no-store');
    }
  });
});

describe('the budget is decided before any data statement: it protects the store', () => {
  /** Services on a budget table of their own, recording every statement they send. */
  async function recorded(overrides: Record<string, string> = {}) {
    const table = freshTableName();
    await createBudgetTable(dynamoEndpoint(), table);
    const svc = createServices(localConfig(readerUrl(), dynamoEndpoint(), { BUDGET_TABLE: table, LOG_LEVEL: 'SILENT', ...overrides }));
    const sent: string[] = [];
    const query = svc.db.query.bind(svc.db);
    svc.db.query = ((text: string, params?: unknown[]) => {
      sent.push(text);
      return query(text, params);
    }) as typeof svc.db.query;
    const call = async (family: 'identity' | 'figures', path: string) => {
      const { event } = toApiGatewayEvent({
        method: 'GET',
        url: `/api/v1${path}`,
        rawHeaders: ['authorization', `Bearer ${manifest.keys.small_budget}`],
        body: '',
      });
      sent.length = 0;
      const res = await (restHandler(readsByFamily[family], svc) as unknown as LambdaHandler)(event, context);
      return {
        status: res.statusCode,
        code: res.statusCode === 200 ? undefined : JSON.parse(res.body as string).error.code,
        sent: [...sent],
      };
    };
    return { svc, call };
  }
  const metrics = `/analyses/${manifest.analyses.small_budget}/metrics`;

  test('a call past the budget sends the caller statement and no other', async () => {
    await awayFromMinuteEdge(10);
    const { svc, call } = await recorded();
    try {
      const served = await call('figures', metrics);
      expect([served.status, served.sent.length]).toEqual([200, 2]);
      for (let i = 1; i < 5; i += 1) expect((await call('identity', '/me')).status).toBe(200);
      const refused = await call('figures', metrics);
      expect([refused.status, refused.code]).toEqual([429, 'rate_limited']);
      expect(refused.sent).toEqual([served.sent[0]]);
    } finally {
      await svc.close();
    }
  });

  test('a call whose budget cannot be counted sends the caller statement and no other', async () => {
    const { svc, call } = await recorded({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', BUDGET_TIMEOUT_MS: '300' });
    try {
      const refused = await call('figures', metrics);
      expect([refused.status, refused.code]).toEqual([503, 'rate_limit_unavailable']);
      expect(refused.sent).toHaveLength(1);
      expect(refused.sent[0]).toMatch(/api_caller\(/);
    } finally {
      await svc.close();
    }
  });
});
