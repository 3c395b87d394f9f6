import { afterAll, describe, expect, test } from '@jest/globals';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { restHandler } from '../../shared/http/rest.js';
import { readsByFamily } from '../../shared/reads/registry.js';
import { toApiGatewayEvent, type LambdaHandler } from '../../shared/local/adapter.js';
import { localConfig } from '../../shared/local/stack.js';
import { createServices } from '../../shared/services.js';
import { dynamoEndpoint, manifest, readerUrl } from '../support/api.js';

/** The real middy chain, invoked as Lambda would, without HTTP in between. */
const services = createServices(localConfig(readerUrl(), dynamoEndpoint(), { API_DISABLED: 'true', API_DISABLED_RETRY_AFTER: '120' }));
afterAll(() => services.close());

const context = { awsRequestId: 'test', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

async function invoke(family: 'identity' | 'figures' | 'catalog', path: string, headers: string[] = []): Promise<APIGatewayProxyStructuredResultV2> {
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
