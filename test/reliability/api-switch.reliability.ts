import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { LocalApi } from '../../local/stack.js';
import { manifest, startTestApi } from '../support/api.js';
import { contractProblems } from './support/contract.js';
import { rawRequest } from './support/raw-http.js';
import { concreteRoutes } from './support/targets.js';

describe('the api switch on: every route, /mcp and /openapi.json included, answers 503 api_disabled', () => {
  let api: LocalApi;
  beforeAll(async () => {
    api = await startTestApi({ API_DISABLED: 'true', API_DISABLED_RETRY_AFTER: '120' });
  });
  afterAll(() => api.close());

  const cases = concreteRoutes(manifest).flatMap(({ route, path }) =>
    [true, false].map(
      (withKey) => [`${route.method} ${route.path} ${withKey ? 'with' : 'without'} a key`, route.method, path, withKey] as const,
    ),
  );

  test.each(cases)('%s', async (_name, method, path, withKey) => {
    const headers: Array<[string, string]> = withKey ? [['Authorization', `Bearer ${manifest.keys.workspace}`]] : [];
    let body: string | undefined;
    if (method === 'POST') {
      headers.push(['Content-Type', 'application/json'], ['Accept', 'application/json, text/event-stream']);
      body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    }
    const reply = await rawRequest(api.url, { method, target: path, headers, ...(body ? { body } : {}) });
    expect(contractProblems(reply, undefined)).toEqual([]);
    expect([reply.status, reply.body?.error?.code]).toEqual([503, 'api_disabled']);
    expect(reply.header('retry-after')).toBe('120');
    // Decided before the key is even looked at: no budget headers.
    expect(reply.headers['x-ratelimit-limit']).toBeUndefined();
  });
});
