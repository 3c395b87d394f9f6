import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { listPrompts } from '#shared/reads/catalog/prompts.js';
import { getRun, listRuns } from '#shared/reads/catalog/runs.js';
import type { LocalApi } from '../../local/stack.js';
import { call, expectError, expectServed, manifest, readerUrl, startTestApi } from '../support/api.js';

let api: LocalApi;
let db: pg.Client;
beforeAll(async () => {
  api = await startTestApi();
  db = new pg.Client({ connectionString: readerUrl() });
  await db.connect();
});
afterAll(async () => {
  await db.end();
  await api.close();
});

const key = () => manifest.keys.workspace;
const collected = () => manifest.analyses.collected;

describe('GET /analyses/{analysis}/prompts (list_prompts)', () => {
  test('every prompt, with group or null, language and creation date; one page; no metrics', async () => {
    const body = expectServed(await call(api, `/analyses/${collected()}/prompts`, key()), listPrompts.output);
    const { rows } = await db.query<{ n: number; ungrouped: number }>(
      'SELECT count(*)::int AS n, count(*) FILTER (WHERE group_id IS NULL)::int AS ungrouped FROM prompts WHERE analysis_id = $1',
      [manifest.analysisIds.collected],
    );
    expect(body.total).toBe(rows[0]!.n);
    expect(body.items).toHaveLength(rows[0]!.n);
    expect(body.next_cursor).toBeNull();
    expect(body.truncated).toBe(false);
    expect(body.items.filter((p) => p.group === null)).toHaveLength(rows[0]!.ungrouped);
    expect(new Set(body.items.map((p) => p.language))).toEqual(new Set(['en', 'fr']));
    // docs/contract.md#what-the-service-does item 6: not a single figure on the catalogue.
    for (const item of body.items) {
      expect(Object.keys(item).sort()).toEqual(['branded', 'branded_source', 'created_at', 'group', 'id', 'language', 'text']);
    }
    expect(Object.keys(body).sort()).toEqual(['items', 'next_cursor', 'total', 'truncated']);
    expect(new Set(body.items.map((p) => p.id)).size).toBe(body.items.length);
  });

  test('by id as by slug; a never-collected analysis still has its prompts; no window accepted', async () => {
    const bySlug = await call(api, `/analyses/${collected()}/prompts`, key());
    const byId = await call(api, `/analyses/${manifest.analysisIds.collected}/prompts`, key());
    expect(byId.text).toBe(bySlug.text);
    const never = expectServed(await call(api, `/analyses/${manifest.analyses.never_collected}/prompts`, key()), listPrompts.output);
    expect(never.total).toBe(3);
    expectError(await call(api, `/analyses/${collected()}/prompts?window=7d`, key()), 422, 'invalid_request', { param: 'window' });
    expectError(await call(api, `/analyses/${manifest.analyses.other_brand}/prompts`, manifest.keys.brand), 404, 'analysis_not_found');
  });
});

describe('GET /analyses/{analysis}/runs (list_runs)', () => {
  test('most recent first, default 30, truncated when older runs exist, total from the store', async () => {
    const body = expectServed(await call(api, `/analyses/${collected()}/runs`, key()), listRuns.output);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM runs WHERE analysis_id = $1', [
      manifest.analysisIds.collected,
    ]);
    expect(body.total).toBe(rows[0]!.n);
    expect(body.items).toHaveLength(30);
    expect(body.truncated).toBe(true);
    expect(body.next_cursor).toBeNull();
    const starts = body.items.map((r) => r.started_at);
    expect([...starts].sort().reverse()).toEqual(starts);
    for (const run of body.items) {
      expect(run.engines.map((e) => e.engine)).toEqual(['chatgpt', 'perplexity', 'gemini', 'ai_overviews', 'claude']);
      for (const e of run.engines) expect(e.collected + e.failed).toBe(e.expected);
    }
    // The rerun day gives two runs on one day, the later first.
    const all = expectServed(await call(api, `/analyses/${collected()}/runs?limit=100`, key()), listRuns.output);
    expect(all.items).toHaveLength(100);
    expect(all.items.slice(0, 30)).toEqual(body.items);
  });

  test('limit bounds and the whole history', async () => {
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM runs WHERE analysis_id = $1', [
      manifest.analysisIds.other_brand,
    ]);
    const whole = expectServed(await call(api, `/analyses/${manifest.analyses.other_brand}/runs?limit=100`, key()), listRuns.output);
    expect(whole.items).toHaveLength(rows[0]!.n);
    expect(whole.truncated).toBe(false);
    const exact = expectServed(
      await call(api, `/analyses/${manifest.analyses.other_brand}/runs?limit=${rows[0]!.n}`, key()),
      listRuns.output,
    );
    expect(exact.truncated).toBe(false);
    const one = expectServed(await call(api, `/analyses/${manifest.analyses.other_brand}/runs?limit=1`, key()), listRuns.output);
    expect(one.items).toHaveLength(1);
    expect(one.truncated).toBe(true);
    for (const bad of ['0', '101', '1.5', 'ten', '1e1', '']) {
      expectError(await call(api, `/analyses/${collected()}/runs?limit=${bad}`, key()), 422, 'invalid_request', { param: 'limit' });
    }
    expectError(await call(api, `/analyses/${collected()}/runs?cursor=x`, key()), 422, 'invalid_request', { param: 'cursor' });
    const never = expectServed(await call(api, `/analyses/${manifest.analyses.never_collected}/runs`, key()), listRuns.output);
    expect(never).toEqual({ items: [], next_cursor: null, truncated: false, total: 0 });
  });
});

describe('GET /analyses/{analysis}/runs/{run} (get_run)', () => {
  test('latest and the id of the latest run give the same body', async () => {
    const list = expectServed(await call(api, `/analyses/${collected()}/runs?limit=1`, key()), listRuns.output);
    const latest = await call(api, `/analyses/${collected()}/runs/latest`, key());
    const byId = await call(api, `/analyses/${collected()}/runs/${list.items[0]!.id}`, key());
    const body = expectServed(latest, getRun.output);
    expectServed(byId, getRun.output);
    expect(byId.text).toBe(latest.text);
    expect(body.id).toBe(list.items[0]!.id);
    expect(body.state).toBe('finished');
    // The demo forces two failed collections on perplexity in the latest run.
    const perplexity = body.engines.find((e) => e.engine === 'perplexity')!;
    expect(perplexity).toMatchObject({ name: 'Perplexity', state: 'done', failed: 2 });
    expect(perplexity.collected).toBe(perplexity.expected - 2);
    expect(body.totals.failed).toBe(body.engines.reduce((s, e) => s + e.failed, 0));
    expect(body.engines.every((e) => e.recipe !== null)).toBe(true);
    // An older run by id, upper-case id too.
    const older = expectServed(await call(api, `/analyses/${collected()}/runs?limit=5`, key()), listRuns.output).items[4]!;
    const old = expectServed(await call(api, `/analyses/${collected()}/runs/${older.id.toUpperCase()}`, key()), getRun.output);
    expect(old).toMatchObject({ id: older.id, state: older.state, started_at: older.started_at });
  });

  test('the extraction-late analysis shows its latest run collected but not extracted', async () => {
    const run = expectServed(await call(api, `/analyses/${manifest.analyses.extraction_late}/runs/latest`, key()), getRun.output);
    expect(run.state).toBe('extracting');
    expect(run.collected_at).not.toBeNull();
    expect(run.finished_at).toBeNull();
    expect(run.totals.collected).toBeGreaterThan(0);
    expect(run.totals.extracted).toBe(0);
    for (const e of run.engines) expect(e).toMatchObject({ state: 'extracting', extracted: 0, recipe: null });
    const list = expectServed(await call(api, `/analyses/${manifest.analyses.extraction_late}/runs?limit=2`, key()), listRuns.output);
    expect(list.items.map((r) => r.state)).toEqual(['extracting', 'finished']);
  });

  test('a run of another analysis, an unknown or malformed id, and latest without runs: 404 not_found', async () => {
    const other = expectServed(await call(api, `/analyses/${manifest.analyses.other_brand}/runs?limit=1`, key()), listRuns.output)
      .items[0]!;
    for (const ref of [
      other.id,
      '00000000-0000-4000-8000-000000000000',
      'abc',
      'latest2',
      'LATEST',
      `${other.id}x`,
      "1' OR '1'='1",
      '%00',
    ]) {
      expectError(await call(api, `/analyses/${collected()}/runs/${encodeURIComponent(ref)}`, key()), 404, 'not_found', { budget: true });
    }
    expectError(await call(api, `/analyses/${manifest.analyses.never_collected}/runs/latest`, key()), 404, 'not_found');
    // Out of reach is the analysis refusal, before any run is looked at.
    expectError(
      await call(api, `/analyses/${manifest.analyses.other_brand}/runs/${other.id}`, manifest.keys.brand),
      404,
      'analysis_not_found',
    );
    expectError(await call(api, `/analyses/${collected()}/runs/latest?limit=1`, key()), 422, 'invalid_request', { param: 'limit' });
  });
});
