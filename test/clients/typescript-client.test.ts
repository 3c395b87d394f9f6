import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { reads as registeredReads } from '#shared/reads/registry.js';
import {
  type ApiErrorCode,
  createClient,
  GeoApiError,
  type GeoClient,
  GeoIncompleteListError,
  type ReadName,
  type RetryEvent,
} from '../../clients/typescript/src/index.js';
import type { LocalApi } from '../../local/stack.js';
import { manifest, readerUrl, startTestApi } from '../support/api.js';

const collected = manifest.analyses.collected;

/** The body a plain GET of the path answers, for comparison with what the client returns. */
async function raw(api: LocalApi, path: string, key: string): Promise<unknown> {
  const res = await fetch(`${api.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return res.json();
}

async function failure(promise: Promise<unknown>): Promise<GeoApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GeoApiError) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}

/** A stand-in for what sits in front of the API (a gateway, a proxy): answers every request with `answer`. */
async function standIn(answer: (hit: number) => { status: number; type: string; body: string; headers?: Record<string, string> } | null) {
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits += 1;
    const a = answer(hits);
    if (!a) return; // never answers
    res.writeHead(a.status, { 'content-type': a.type, ...a.headers });
    res.end(a.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    hits: () => hits,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('the TypeScript client on the local stack', () => {
  let api: LocalApi;
  let geo: GeoClient;
  beforeAll(async () => {
    api = await startTestApi();
    geo = createClient({ apiKey: manifest.keys.workspace, baseUrl: api.baseUrl });
  });
  afterAll(() => api.close());

  test('every read answers what a plain GET of its path answers, typed', async () => {
    const key = manifest.keys.workspace;
    const me = await geo.getMe();
    expect(me.workspace.id).toBe(manifest.workspaces.acme);
    // The budget of the last answer, without reading a header.
    expect(geo.rateLimit).toEqual({
      limit: me.rate_limit.per_minute,
      remaining: me.rate_limit.remaining,
      resetSeconds: me.rate_limit.reset_after_seconds,
    });

    const groups = await geo.listGroups({ analysis: collected, window: '30d' });
    const group = groups.items[0]?.id ?? 'none';
    const answers = await geo.listAnswers({ analysis: collected, window: '30d', limit: 2 });
    const answer = answers.items[0]?.id;
    if (!answer) throw new Error('the demo analysis has no answer in 30 days');

    const a = encodeURIComponent(collected);
    const cases: Array<[ReadName, Record<string, string | number>, string]> = [
      ['listAnalyses', { limit: 2 }, '/analyses?limit=2'],
      ['getAnalysis', { analysis: collected }, `/analyses/${a}`],
      ['getMetrics', { analysis: collected, window: '30d' }, `/analyses/${a}/metrics?window=30d`],
      ['getMetricsTimeseries', { analysis: collected, window: '14d' }, `/analyses/${a}/metrics/timeseries?window=14d`],
      ['listEngines', { analysis: collected }, `/analyses/${a}/engines`],
      ['listCompetitors', { analysis: collected, window: '90d' }, `/analyses/${a}/competitors?window=90d`],
      ['listSources', { analysis: collected, limit: 3 }, `/analyses/${a}/sources?limit=3`],
      ['listGroups', { analysis: collected }, `/analyses/${a}/groups`],
      ['listGroupPrompts', { analysis: collected, group, limit: 2, offset: 1 }, `/analyses/${a}/groups/${group}/prompts?limit=2&offset=1`],
      ['listPrompts', { analysis: collected }, `/analyses/${a}/prompts`],
      ['listRuns', { analysis: collected, limit: 2 }, `/analyses/${a}/runs?limit=2`],
      ['getRun', { analysis: collected, run: 'latest' }, `/analyses/${a}/runs/latest`],
      [
        'listAnswers',
        { analysis: collected, from: '2000-01-01', to: '2000-12-31' },
        `/analyses/${a}/answers?from=2000-01-01&to=2000-12-31`,
      ],
      ['getAnswer', { analysis: collected, answer }, `/analyses/${a}/answers/${answer}`],
    ];
    // getMe is above; the table holds every other, so every read is called once here.
    expect(new Set([...cases.map(([r]) => r), 'getMe']).size).toBe(registeredReads.length);
    for (const [read, params, path] of cases) {
      const viaClient = await (geo[read] as (p: unknown) => Promise<unknown>)(params);
      expect({ read, body: viaClient }).toEqual({ read, body: await raw(api, path, key) });
    }
  });

  test("paging: every answer of the demo's largest analysis, as many as the API's total, none twice", async () => {
    // The largest analysis over all the demo's workspaces, by the answer list's own total.
    let largest = { key: '', analysis: '', total: -1 };
    for (const key of [manifest.keys.workspace, manifest.keys.other_workspace]) {
      const client = createClient({ apiKey: key, baseUrl: api.baseUrl });
      for await (const analysis of client.paginate('listAnalyses', {})) {
        const { total } = await client.listAnswers({ analysis: analysis.slug, window: 'all', limit: 1 });
        if (total > largest.total) largest = { key, analysis: analysis.slug, total };
      }
    }
    expect(largest.total).toBeGreaterThan(100); // more than one page of the largest size
    const client = createClient({ apiKey: largest.key, baseUrl: api.baseUrl });
    const ids: string[] = [];
    let served = 0;
    let pages = 0;
    const totals = new Set<number>();
    for await (const item of client.paginate(
      'listAnswers',
      { analysis: largest.analysis, window: 'all' },
      {
        onPage: (p) => {
          served += p.items;
          pages = p.page;
          totals.add(p.total);
        },
      },
    )) {
      ids.push(item.id);
    }
    expect(totals).toEqual(new Set([largest.total]));
    expect(ids.length).toBe(largest.total);
    expect(new Set(ids).size).toBe(ids.length);
    // What the API served, page by page, is what was yielded: no item was dropped as a repeat.
    expect(served).toBe(ids.length);
    expect(pages).toBe(Math.ceil(largest.total / 100));
  });

  test('paging by cursor with a small page and by offset give every item once, as many as total', async () => {
    const slugs: string[] = [];
    for await (const a of geo.paginate('listAnalyses', { limit: 1 })) slugs.push(a.slug);
    const first = await geo.listAnalyses({ limit: 1 });
    expect(slugs.length).toBe(first.total);
    expect(new Set(slugs).size).toBe(slugs.length);
    expect(slugs.length).toBeGreaterThan(1);

    const groups = await geo.listGroups({ analysis: collected, window: '30d' });
    const group = groups.items.find((g) => g.prompts > 1);
    if (!group) throw new Error('no group of the demo holds two prompts');
    const prompts: string[] = [];
    let pages = 0;
    for await (const p of geo.paginate(
      'listGroupPrompts',
      { analysis: collected, group: group.id, window: '30d', limit: 1 },
      { onPage: (e) => (pages = e.page) },
    )) {
      prompts.push(p.prompt.id);
    }
    const whole = await geo.listGroupPrompts({ analysis: collected, group: group.id, window: '30d', limit: 200 });
    expect(prompts).toEqual(whole.items.map((p) => p.prompt.id));
    expect(prompts.length).toBe(whole.total);
    expect(pages).toBe(whole.total);

    // A list of one page: its items, and the client stops there.
    const engines: string[] = [];
    for await (const e of geo.paginate('listEngines', { analysis: collected })) engines.push(e.engine.key);
    expect(engines).toEqual((await geo.listEngines({ analysis: collected })).items.map((e) => e.engine.key));
  });

  test('a one-page read is asked its largest page: a limit under paginate is a page size, never a cut', async () => {
    const whole = await geo.listSources({ analysis: collected, window: '30d', limit: 200 });
    expect(whole.total).toBeGreaterThan(5);
    expect(whole.truncated).toBe(false);
    const domains: string[] = [];
    const pages: Array<{ page: number; total: number; window: string | undefined }> = [];
    for await (const s of geo.paginate(
      'listSources',
      { analysis: collected, window: '30d', limit: 5 },
      { onPage: (e) => pages.push({ page: e.page, total: e.total, window: e.body.context.window.name }) },
    )) {
      domains.push(s.domain);
    }
    expect(domains).toEqual(whole.items.map((s) => s.domain));
    expect(domains.length).toBe(whole.total);
    // The page's whole answer goes to onPage: what it says besides the items.
    expect(pages).toEqual([{ page: 1, total: whole.total, window: '30d' }]);
  });

  test('a list longer than any call reaches: every item got is yielded, once, then GeoIncompleteListError', async () => {
    const { total } = await geo.listRuns({ analysis: collected, limit: 1 });
    const first = await geo.listRuns({ analysis: collected, limit: 100 });
    expect(total).toBeGreaterThan(100); // the demo's collected analysis holds more runs than one page
    const ids: string[] = [];
    let thrown: unknown;
    try {
      for await (const run of geo.paginate('listRuns', { analysis: collected, limit: 2 })) ids.push(run.id);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GeoIncompleteListError);
    expect(thrown).not.toBeInstanceOf(GeoApiError);
    const error = thrown as GeoIncompleteListError;
    expect({ read: error.read, yielded: error.yielded, total: error.total }).toEqual({ read: 'listRuns', yielded: 100, total });
    expect(error.message).toBe(`listRuns gave 100 of ${total} items: ${error.reason}`);
    expect(error.reason).toMatch(/one page of at most 100 items/);
    expect(ids).toEqual(first.items.map((r) => r.id));
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('a base address without /api/v1: the not_found says what to try', async () => {
    const host = new URL(api.baseUrl).origin;
    const error = await failure(createClient({ apiKey: manifest.keys.workspace, baseUrl: `${host}/` }).getMe());
    expect([error.code, error.status]).toEqual(['not_found', 404]);
    expect(error.message).toBe(
      `No such endpoint. The base URL ${host} does not end with /api/v1, as the API's base address does: try ${host}/api/v1.`,
    );
    // Under /api/v1 a path that does not exist gets the API's text alone.
    const under = await failure(createClient({ apiKey: manifest.keys.workspace, baseUrl: `${api.baseUrl}/nowhere/api/v1` }).getMe());
    expect(under.code).toBe('not_found');
    expect(under.message).toBe('No such endpoint.');
  });
});

describe('each error code becomes a GeoApiError carrying it', () => {
  let api: LocalApi;
  const apis: LocalApi[] = [];
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api.close();
    for (const a of apis) await a.close();
  });
  const client = (key: string, base = api.baseUrl) => createClient({ apiKey: key, baseUrl: base, maxRetries: 0 });
  const startOwn = async (env: Record<string, string>) => {
    const own = await startTestApi(env);
    apis.push(own);
    return own;
  };

  async function expectCode(promise: Promise<unknown>, code: ApiErrorCode, status: number): Promise<GeoApiError> {
    const error = await failure(promise);
    expect({ code: error.code, status: error.status }).toEqual({ code, status });
    expect(error).toBeInstanceOf(Error);
    expect(error.message.length).toBeGreaterThan(0);
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    return error;
  }

  test('the key: unauthorized, key_revoked, plan_required (no budget stated)', async () => {
    for (const [key, code, status] of [
      ['not-a-key', 'unauthorized', 401],
      [manifest.keys.revoked, 'key_revoked', 401],
      [manifest.keys.expired, 'key_revoked', 401],
      [manifest.keys.plan_without_api, 'plan_required', 403],
    ] as const) {
      const error = await expectCode(client(key).getMe(), code, status);
      expect(error.rateLimit).toBeNull();
      expect(error.retryAfter).toBeNull();
    }
  });

  test('analysis_not_found, not_found, invalid_request with its param, cursor_expired', async () => {
    const geo = client(manifest.keys.workspace);
    await expectCode(geo.getAnalysis({ analysis: 'no-such-analysis' }), 'analysis_not_found', 404);
    await expectCode(geo.getRun({ analysis: collected, run: '00000000-0000-4000-8000-00000000abcd' }), 'not_found', 404);
    const limit = await expectCode(geo.listAnalyses({ limit: 0 }), 'invalid_request', 422);
    expect(limit.param).toBe('limit');
    // A key the read does not know reaches the server, which names it.
    const unknown = await expectCode(geo.listAnalyses({ colour: 'red' } as never), 'invalid_request', 422);
    expect(unknown.param).toBe('colour');
    expect(unknown.rateLimit?.limit).toBeGreaterThan(0);
    const page = await geo.listAnswers({ analysis: collected, window: '30d', limit: 1 });
    if (!page.next_cursor) throw new Error('one answer in 30 days: no cursor to replay');
    await expectCode(geo.listAnswers({ analysis: collected, window: '7d', cursor: page.next_cursor }), 'cursor_expired', 422);
  });

  test('rate_limited with retryAfter and the budget, when retries are off', async () => {
    const own = await startOwn({ PLAN_CEILINGS: JSON.stringify({ growth: 0 }) });
    const error = await expectCode(client(manifest.keys.workspace, own.baseUrl).getMe(), 'rate_limited', 429);
    expect(error.retryAfter).toBeGreaterThanOrEqual(1);
    expect(error.rateLimit).toEqual({ limit: 0, remaining: 0, resetSeconds: error.retryAfter });
  });

  test('the 503s: rate_limit_unavailable, upstream_timeout, api_disabled, each with its Retry-After', async () => {
    const noCounter = await startOwn({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', BUDGET_TIMEOUT_MS: '300' });
    expect((await expectCode(client(manifest.keys.workspace, noCounter.baseUrl).getMe(), 'rate_limit_unavailable', 503)).retryAfter).toBe(
      1,
    );

    const noStore = await startOwn({ DATABASE_URL: 'postgres://geo_reader@127.0.0.1:9/geo', DB_CONNECT_TIMEOUT_MS: '500' });
    expect((await expectCode(client(manifest.keys.workspace, noStore.baseUrl).getMe(), 'upstream_timeout', 503)).retryAfter).toBe(20);

    const off = await startOwn({ API_DISABLED: 'true', API_DISABLED_RETRY_AFTER: '120' });
    expect((await expectCode(client(manifest.keys.workspace, off.baseUrl).getMe(), 'api_disabled', 503)).retryAfter).toBe(120);
  });

  test('internal_error: a store that refuses the TLS the service asks for is a configuration fault', async () => {
    const url = new URL(readerUrl());
    url.searchParams.set('sslmode', 'verify-full');
    const misconfigured = await startOwn({ DATABASE_URL: url.toString(), LOG_LEVEL: 'SILENT' });
    await expectCode(client(manifest.keys.workspace, misconfigured.baseUrl).getMe(), 'internal_error', 500);
  });
});

describe('retries: what is retried, how often, and the wait made visible', () => {
  let api: LocalApi;
  beforeAll(async () => {
    api = await startTestApi({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', BUDGET_TIMEOUT_MS: '300' });
  });
  afterAll(() => api.close());

  test('rate_limit_unavailable is retried once, after its Retry-After, then thrown; the wait goes to onRetry', async () => {
    const events: RetryEvent[] = [];
    let calls = 0;
    const geo = createClient({
      apiKey: manifest.keys.workspace,
      baseUrl: api.baseUrl,
      maxRetries: 5,
      onRetry: (e) => events.push(e),
      fetch: (input, init) => {
        calls += 1;
        return fetch(input, init);
      },
    });
    const error = await failure(geo.getMe());
    expect(error.code).toBe('rate_limit_unavailable');
    expect(calls).toBe(2);
    expect(events.map((e) => [e.read, e.attempt, e.delayMs, e.error.code])).toEqual([['getMe', 1, 1000, 'rate_limit_unavailable']]);
  });

  test('a network fault is a GeoApiError, retried once after a backoff', async () => {
    const closed = await standIn(() => null);
    const port = new URL(closed.baseUrl).port;
    await closed.close();
    const events: RetryEvent[] = [];
    const geo = createClient({ apiKey: 'geo_live_x', baseUrl: `http://127.0.0.1:${port}/api/v1`, onRetry: (e) => events.push(e) });
    const error = await failure(geo.getMe());
    expect([error.code, error.status, error.requestId]).toEqual(['network_error', 0, null]);
    expect(events.map((e) => e.error.code)).toEqual(['network_error']);
    expect(events[0]!.delayMs).toBeGreaterThanOrEqual(1000);
    expect(events[0]!.delayMs).toBeLessThanOrEqual(1250);
  });

  test('an answer that is not the API JSON (a gateway 502 page, a 200 proxy page, a gateway 503 message) is a GeoApiError', async () => {
    const gateway = await standIn(() => ({
      status: 502,
      type: 'text/html',
      body: '<html><body>Bad Gateway</body></html>',
      headers: { 'apigw-requestid': 'abc123' },
    }));
    try {
      const events: RetryEvent[] = [];
      const error = await failure(createClient({ apiKey: 'geo_live_x', baseUrl: gateway.baseUrl, onRetry: (e) => events.push(e) }).getMe());
      expect([error.code, error.status, error.requestId]).toEqual(['unexpected_response', 502, 'abc123']);
      expect(gateway.hits()).toBe(2); // a gateway's 502 is transient: retried once
      expect(events.length).toBe(1);
    } finally {
      await gateway.close();
    }
    const proxy = await standIn(() => ({ status: 200, type: 'text/html', body: '<html>Sign in to the network</html>' }));
    try {
      const error = await failure(createClient({ apiKey: 'geo_live_x', baseUrl: proxy.baseUrl }).listAnalyses());
      expect([error.code, error.status]).toEqual(['unexpected_response', 200]);
      expect(proxy.hits()).toBe(1);
    } finally {
      await proxy.close();
    }
    const busy = await standIn(() => ({ status: 503, type: 'application/json', body: '{"message":"Service Unavailable"}' }));
    try {
      const error = await failure(createClient({ apiKey: 'geo_live_x', baseUrl: busy.baseUrl, maxRetries: 0 }).getMe());
      expect([error.code, error.status]).toEqual(['unexpected_response', 503]);
      expect(busy.hits()).toBe(1);
    } finally {
      await busy.close();
    }
  });

  test('no answer within timeoutMs is a timeout error', async () => {
    const silent = await standIn(() => null);
    try {
      const error = await failure(createClient({ apiKey: 'geo_live_x', baseUrl: silent.baseUrl, timeoutMs: 200, maxRetries: 0 }).getMe());
      expect([error.code, error.status]).toEqual(['timeout', 0]);
    } finally {
      await silent.close();
    }
  });

  test('429s are retried after Retry-After as often as maxRetries allows, never more', async () => {
    // The API's own 429 body, with a Retry-After of 0 so that the test does not wait out a minute.
    const limited = await standIn(() => ({
      status: 429,
      type: 'application/json; charset=utf-8',
      body: JSON.stringify({ error: { code: 'rate_limited', message: 'spent', request_id: '00000000-0000-4000-8000-000000000001' } }),
      headers: { 'retry-after': '0', 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '0' },
    }));
    try {
      const events: RetryEvent[] = [];
      const geo = createClient({ apiKey: 'geo_live_x', baseUrl: limited.baseUrl, maxRetries: 3, onRetry: (e) => events.push(e) });
      const error = await failure(geo.getMe());
      expect(error.code).toBe('rate_limited');
      expect(limited.hits()).toBe(4);
      expect(events.map((e) => e.attempt)).toEqual([1, 2, 3]);
      expect(geo.rateLimit).toEqual({ limit: 5, remaining: 0, resetSeconds: 0 });
    } finally {
      await limited.close();
    }
    // A gateway's own throttling, without the API's body: waited out the same way.
    const throttled = await standIn(() => ({
      status: 429,
      type: 'application/json',
      body: '{"message":"Too Many Requests"}',
      headers: { 'retry-after': '0' },
    }));
    try {
      const error = await failure(createClient({ apiKey: 'geo_live_x', baseUrl: throttled.baseUrl, maxRetries: 2 }).getMe());
      expect([error.code, error.status, error.retryAfter]).toEqual(['unexpected_response', 429, 0]);
      expect(throttled.hits()).toBe(3);
    } finally {
      await throttled.close();
    }
  });

  test('no key or no base address: a clear message, before any call', () => {
    const saved = { key: process.env.GEO_API_KEY, base: process.env.GEO_BASE_URL };
    delete process.env.GEO_API_KEY;
    delete process.env.GEO_BASE_URL;
    try {
      expect(() => createClient({ baseUrl: api.baseUrl })).toThrow(/GEO_API_KEY/);
      expect(() => createClient({ apiKey: 'geo_live_x' })).toThrow(/GEO_BASE_URL/);
      process.env.GEO_API_KEY = manifest.keys.workspace;
      process.env.GEO_BASE_URL = `${api.baseUrl}/`;
      expect(createClient().baseUrl).toBe(api.baseUrl);
    } finally {
      if (saved.key === undefined) delete process.env.GEO_API_KEY;
      else process.env.GEO_API_KEY = saved.key;
      if (saved.base === undefined) delete process.env.GEO_BASE_URL;
      else process.env.GEO_BASE_URL = saved.base;
    }
  });
});
