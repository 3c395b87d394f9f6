import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { LocalApi } from '../../local/stack.js';
import { manifest, startTestApi } from '../support/api.js';
import { captureLogLines as captureLines } from '../support/capture.js';
import { get, UUID } from './support/contract.js';
import type { RawReply } from './support/raw-http.js';

describe('one structured log line and one EMF count per request', () => {
  let api: LocalApi;
  let downBudget: LocalApi;
  beforeAll(async () => {
    api = await startTestApi({ LOG_LEVEL: 'INFO' });
    downBudget = await startTestApi({ LOG_LEVEL: 'INFO', DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', BUDGET_TIMEOUT_MS: '200' });
  });
  afterAll(async () => {
    await api.close();
    await downBudget.close();
  });

  test('served, 401, 403, 404, 422, 429 and 503: request id, key id never the secret, workspace, read, status, code, timings; counted by code and read', async () => {
    const calls: Array<{ reply: RawReply; code: string | undefined; read: string | undefined; key?: string }> = [];
    const lines = await captureLines(async () => {
      const push = async (p: Promise<RawReply>, code: string | undefined, read: string | undefined, key?: string) =>
        calls.push({ reply: await p, code, read, ...(key ? { key } : {}) });
      await push(
        get(api, `/analyses/${manifest.analyses.collected}`, manifest.keys.workspace),
        undefined,
        'get_analysis',
        manifest.keys.workspace,
      );
      await push(get(api, '/me', 'geo_live_nope'), 'unauthorized', 'get_me');
      await push(get(api, '/me', manifest.keys.revoked), 'key_revoked', 'get_me', manifest.keys.revoked);
      await push(get(api, '/me', manifest.keys.plan_without_api), 'plan_required', 'get_me', manifest.keys.plan_without_api);
      await push(get(api, '/analyses/globex-core', manifest.keys.workspace), 'analysis_not_found', 'get_analysis', manifest.keys.workspace);
      await push(get(api, '/analyses?limit=0', manifest.keys.workspace), 'invalid_request', 'list_analyses', manifest.keys.workspace);
      for (let i = 0; i < 6; i += 1)
        await push(get(api, '/me', manifest.keys.small_budget), undefined, 'get_me', manifest.keys.small_budget);
      await push(get(downBudget, '/me', manifest.keys.workspace), 'rate_limit_unavailable', 'get_me', manifest.keys.workspace);
    });
    // The sixth tiny-budget call is refused, unless a minute edge fell between them: then all served.
    const tiny = calls.filter((c) => c.key === manifest.keys.small_budget);
    for (const c of tiny) c.code = c.reply.status === 429 ? 'rate_limited' : undefined;

    const requestLines = lines.filter((l) => l.message === 'request');
    const emf = lines.filter((l) => l._aws);
    expect(requestLines.length).toBe(calls.length);
    expect(emf.length).toBe(calls.length);
    for (const { reply, code, read, key } of calls) {
      const id = reply.header('x-request-id') as string;
      const mine = requestLines.filter((l) => l.request_id === id);
      expect(mine.length).toBe(1);
      const line = mine[0] as Record<string, any>;
      expect(line).toMatchObject({ level: 'INFO', service: 'geo-api', status: reply.status, read });
      expect(line.error_code).toBe(code);
      expect(typeof line.duration_ms).toBe('number');
      expect(typeof line.timestamp).toBe('string');
      if (reply.status === 200) {
        expect(line.key_id).toMatch(UUID);
        expect(line.workspace_id).toMatch(UUID);
        for (const stage of ['caller_ms', 'budget_ms', 'data_ms']) expect(typeof line[stage]).toBe('number');
        expect(line.caller_ms + line.budget_ms + line.data_ms).toBeLessThanOrEqual(line.duration_ms + 0.05);
      }
      if (['analysis_not_found', 'invalid_request', 'rate_limited'].includes(code ?? '')) expect(line.key_id).toMatch(UUID);
      if (key) expect(JSON.stringify(line)).not.toContain(key);
    }
    // EMF: namespace geo-api, a Count named requests, dimensions service+read+error_code.
    for (const m of emf) {
      const def = m._aws.CloudWatchMetrics[0];
      expect(def.Namespace).toBe('geo-api');
      expect(def.Dimensions).toEqual([['service', 'read', 'error_code']]);
      expect(def.Metrics).toEqual([{ Name: 'requests', Unit: 'Count' }]);
      expect(m.requests).toBe(1);
    }
    const byCode = (c: string) => emf.filter((m) => m.error_code === c).length;
    for (const c of ['unauthorized', 'key_revoked', 'plan_required', 'analysis_not_found', 'invalid_request', 'rate_limit_unavailable'])
      expect(byCode(c)).toBe(1);
    expect(byCode('none')).toBe(calls.filter((c) => c.reply.status === 200).length);
    expect(emf.find((m) => m.error_code === 'analysis_not_found')?.read).toBe('get_analysis');
  });

  test('at LOG_LEVEL=ERROR (the test default) no request line and no metric is written', async () => {
    const quiet = await startTestApi();
    try {
      const lines = await captureLines(async () => {
        await get(quiet, '/me', manifest.keys.workspace);
        await get(quiet, '/me', 'geo_live_nope');
      });
      expect(lines).toEqual([]);
    } finally {
      await quiet.close();
    }
  });
});
