import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { listAnalyses } from '#shared/reads/identity/analyses.js';
import type { LocalApi } from '../../local/stack.js';
import { call, expectError, expectServed, manifest, startTestApi } from '../support/api.js';

let api: LocalApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());
const key = () => manifest.keys.workspace;

describe('strict input (docs/contract.md#common-parameters rules 1-2): refused, never clamped', () => {
  test.each([
    ['/me?foo=1', 'foo'],
    ['/analyses?foo=1', 'foo'],
    ['/analyses?limit=5&limit=6', 'limit'],
    ['/analyses?limit=5&limit=5', 'limit'],
    [`/analyses/${'collected'}?window=7d`, 'window'],
    ['/analyses?analysis=x', 'analysis'],
  ])('%s → 422 naming %s', async (path, param) => {
    expectError(await call(api, path, key()), 422, 'invalid_request', { param, budget: true });
  });

  test.each(['0', '201', '-1', '1.5', 'abc', '', '1e1', '0x10', '010', ' 5', '99999999999999999999'])(
    'limit=%p → 422 invalid_request with param limit',
    async (value) => {
      expectError(await call(api, `/analyses?limit=${encodeURIComponent(value)}`, key()), 422, 'invalid_request', { param: 'limit' });
    },
  );

  test.each(['1', '200', '50'])('limit=%s is accepted', async (value) => {
    const page = expectServed(await call(api, `/analyses?limit=${value}`, key()), listAnalyses.output);
    expect(page.items.length).toBeLessThanOrEqual(Number(value));
  });

  test('an altered or garbage cursor → 422 invalid_request naming cursor', async () => {
    const first = expectServed(await call(api, '/analyses?limit=1', key()), listAnalyses.output);
    const cursor = first.next_cursor!;
    const flipped = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
    for (const bad of [flipped, 'garbage', '', `${cursor}x`, cursor.split('.')[0] as string, `${cursor}.x`]) {
      expectError(await call(api, `/analyses?cursor=${encodeURIComponent(bad)}`, key()), 422, 'invalid_request', { param: 'cursor' });
    }
  });

  test('a cursor replayed by another key → 422 cursor_expired', async () => {
    const first = expectServed(await call(api, '/analyses?limit=1', key()), listAnalyses.output);
    const reply = await call(api, `/analyses?cursor=${encodeURIComponent(first.next_cursor!)}`, manifest.keys.brand);
    expectError(reply, 422, 'cursor_expired', { budget: true });
    expect(reply.body.error.param).toBeUndefined();
  });

  test('an unknown path is 404 not_found, another method 405 with Allow, both in the envelope and before the key', async () => {
    for (const path of ['/nothing-here', `/analyses/${manifest.analyses.collected}/metrics/extra`, '/../../etc/passwd']) {
      expectError(await call(api, path, key()), 404, 'not_found', { budget: false });
    }
    // A segment that is not percent-encoded UTF-8 names nothing: no route, before any key.
    for (const segment of ['%ff', '%C0%AE', '%E2%82', '%']) {
      const reply = await call(api, `/analyses/${segment}/metrics`, null);
      expectError(reply, 404, 'not_found', { budget: false });
      expect(reply.body.error.message).toBe('No such endpoint.');
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      for (const path of ['/me', `/analyses/${manifest.analyses.collected}/metrics`, '/openapi.json']) {
        const reply = await call(api, path, null, { method, ...(method === 'POST' || method === 'PUT' ? { body: '{}' } : {}) });
        expectError(reply, 405, 'method_not_allowed', { budget: false });
        expect(reply.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
        expect(reply.body.error.message).toBe('This endpoint only answers GET, HEAD, OPTIONS.');
      }
    }
  });
});
