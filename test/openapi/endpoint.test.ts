import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { OPENAPI_FILE } from '#shared/rest/serialize-openapi.js';
import type { LocalApi } from '../../local/stack.js';
import { awayFromMinuteEdge, call, expectError, manifest, startTestApi } from '../support/api.js';

let api: LocalApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('GET /api/v1/openapi.json', () => {
  test('public: no key, no budget, the committed bytes', async () => {
    const reply = await call(api, '/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.text).toBe(await readFile(join(import.meta.dirname, '..', '..', OPENAPI_FILE), 'utf8'));
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.headers.get('x-ratelimit-limit')).toBeNull();
  });

  test('a key is neither needed nor spent', async () => {
    // Both /me calls in one budget minute, or the second reads a fresh minute's count.
    await awayFromMinuteEdge(10);
    const before = (await call(api, '/me', manifest.keys.workspace)).body.rate_limit.remaining as number;
    for (let i = 0; i < 3; i += 1) expect((await call(api, '/openapi.json', manifest.keys.workspace)).status).toBe(200);
    const after = (await call(api, '/me', manifest.keys.workspace)).body.rate_limit.remaining as number;
    expect(after).toBe(before - 1);
  });

  test('the API switch still applies: 503 api_disabled with Retry-After', async () => {
    const off = await startTestApi({ API_DISABLED: 'true', API_DISABLED_RETRY_AFTER: '120' });
    try {
      const reply = await call(off, '/openapi.json');
      expectError(reply, 503, 'api_disabled', { budget: false });
      expect(reply.headers.get('retry-after')).toBe('120');
      const mcp = await call(off, '/mcp', manifest.keys.workspace, { method: 'POST', body: '{}' });
      expectError(mcp, 503, 'api_disabled', { budget: false });
    } finally {
      await off.close();
    }
  });
});
