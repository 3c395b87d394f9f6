import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { LocalApi } from '../../local/stack.js';
import { call, expectError, manifest, startTestApi } from '../support/api.js';

let api: LocalApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('docs/contract.md#authentication: every key state gives its code, before the budget', () => {
  test.each([
    ['no header', undefined],
    ['wrong scheme', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
    ['not a geo_live_ secret', { authorization: 'Bearer sk_live_0123456789abcdef0123456789abcdef' }],
    ['prefix alone', { authorization: 'Bearer geo_live_' }],
    ['two spaces', { authorization: `Bearer  ${manifest.keys.workspace}` }],
    ['unknown key', { authorization: `Bearer geo_live_${'x'.repeat(40)}` }],
  ])('%s → 401 unauthorized', async (_name, headers) => {
    for (const path of ['/me', '/analyses', `/analyses/${manifest.analyses.collected}`]) {
      const reply = await call(api, path, null, headers ? { headers } : {});
      expectError(reply, 401, 'unauthorized', { budget: false });
    }
  });

  test.each(['revoked', 'expired', 'creator_removed', 'creator_suspended'] as const)('%s key → 401 key_revoked', async (label) => {
    for (const path of ['/me', '/analyses', `/analyses/${manifest.analyses.collected}`]) {
      expectError(await call(api, path, manifest.keys[label]), 401, 'key_revoked', { budget: false });
    }
  });

  test('plan without API → 403 plan_required, on /me too', async () => {
    for (const path of ['/me', '/analyses', `/analyses/${manifest.analyses.plan_without_api}`]) {
      expectError(await call(api, path, manifest.keys.plan_without_api), 403, 'plan_required', { budget: false });
    }
  });

  test('the scheme is case-insensitive, the secret is not', async () => {
    const ok = await call(api, '/me', null, { headers: { authorization: `bearer ${manifest.keys.workspace}` } });
    expect(ok.status).toBe(200);
    const upper = `geo_live_${manifest.keys.workspace.slice(9).toUpperCase()}`;
    if (upper !== manifest.keys.workspace) expectError(await call(api, '/me', upper), 401, 'unauthorized', { budget: false });
  });
});
