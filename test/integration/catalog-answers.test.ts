import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import type { z } from 'zod';
import { listAnswers } from '#shared/reads/catalog/answers.js';
import type { LocalApi } from '../../local/stack.js';
import { call, expectError, expectServed, manifest, readerUrl, startTestApi } from '../support/api.js';

// Paging 90 days 7 at a time is ~1500 calls: far above the demo plan's 600 a minute.
let api: LocalApi;
let db: pg.Client;
beforeAll(async () => {
  api = await startTestApi({ PLAN_CEILINGS: JSON.stringify({ growth: 100000 }) });
  db = new pg.Client({ connectionString: readerUrl() });
  await db.connect();
});
afterAll(async () => {
  await db.end();
  await api.close();
});

type ListBody = z.infer<typeof listAnswers.output>;
const schema = listAnswers.output;
const key = () => manifest.keys.workspace;
const base = (analysis = manifest.analyses.collected) => `/analyses/${analysis}/answers`;
const withCursor = (qs: string, cursor: string) => `${qs}${qs.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`;

const DAY_MS = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.parse(`${today()}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);
const nextDay = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);

async function directCount(analysisId: string, first: string | null, last: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM answers WHERE analysis_id = $1 AND ($2::timestamptz IS NULL OR captured_at >= $2) AND captured_at < $3`,
    [analysisId, first === null ? null : `${first}T00:00:00Z`, `${nextDay(last)}T00:00:00Z`],
  );
  return rows[0]!.n;
}

async function pageAll(qs: string, k = key(), analysis = manifest.analyses.collected): Promise<ListBody[]> {
  const pages: ListBody[] = [];
  let cursor: string | null = null;
  do {
    const path: string = cursor ? withCursor(`${base(analysis)}${qs}`, cursor) : `${base(analysis)}${qs}`;
    const page: ListBody = expectServed(await call(api, path, k), schema);
    pages.push(page);
    cursor = page.next_cursor;
  } while (cursor && pages.length < 5000);
  return pages;
}

describe('GET /analyses/{analysis}/answers (list_answers)', () => {
  test('paging 90d with limit 7 visits every answer of the window exactly once; total matches the store', async () => {
    const pages = await pageAll('?window=90d&limit=7');
    const first = pages[0]!;
    expect(first.context.window).toEqual({ name: '90d', first_day: daysAgo(89), last_day: today() });
    const ids = pages.flatMap((p) => p.items.map((i) => i.id));
    const expected = await directCount(manifest.analysisIds.collected, first.context.window.first_day, first.context.window.last_day);
    expect(expected).toBeGreaterThan(5000);
    expect(ids.length).toBe(expected);
    expect(new Set(ids).size).toBe(expected);
    expect(new Set(pages.map((p) => p.total))).toEqual(new Set([expected]));
    expect(pages.every((p) => p.context.window.first_day === first.context.window.first_day)).toBe(true);
    expect(pages.slice(0, -1).every((p) => p.items.length === 7 && p.truncated && p.next_cursor)).toBe(true);
    expect(pages.at(-1)!.next_cursor).toBeNull();
    expect(pages.at(-1)!.truncated).toBe(false);
    // Keyset order: captured_at then id, both descending, across page boundaries.
    const items = pages.flatMap((p) => p.items);
    for (let i = 1; i < items.length; i += 1) {
      const [a, b] = [items[i - 1]!, items[i]!];
      expect(a.captured_at > b.captured_at || (a.captured_at === b.captured_at && a.id > b.id)).toBe(true);
    }
    // The same ids as the store, in the store's order.
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM answers WHERE analysis_id = $1 AND captured_at >= $2 AND captured_at < $3 ORDER BY captured_at DESC, id DESC`,
      [manifest.analysisIds.collected, `${first.context.window.first_day}T00:00:00Z`, `${nextDay(today())}T00:00:00Z`],
    );
    expect(ids).toEqual(rows.map((r) => r.id));
  }, 600_000);

  test('identifiers only: no text; each item has engine, prompt, run and capture time', async () => {
    const page = expectServed(await call(api, `${base()}?limit=100`, key()), schema);
    expect(page.items).toHaveLength(100);
    for (const item of page.items) expect(Object.keys(item).sort()).toEqual(['captured_at', 'engine', 'id', 'prompt_id', 'run_id']);
    expect(page.context.window).toEqual({ name: '30d', first_day: daysAgo(29), last_day: today() });
    expect(page.total).toBe(await directCount(manifest.analysisIds.collected, daysAgo(29), today()));
    // Default is 30d: the same as asking for it.
    const explicit = expectServed(await call(api, `${base()}?window=30d&limit=100`, key()), schema);
    expect(explicit.items).toEqual(page.items);
    expect(explicit.total).toBe(page.total);
  });

  test('windows: 7d, all, from/to inclusive; last-run refused; bad combinations refused', async () => {
    const seven = expectServed(await call(api, `${base()}?window=7d&limit=1`, key()), schema);
    expect(seven.context.window).toEqual({ name: '7d', first_day: daysAgo(6), last_day: today() });
    expect(seven.total).toBe(await directCount(manifest.analysisIds.collected, daysAgo(6), today()));
    const all = expectServed(await call(api, `${base()}?window=all&limit=1`, key()), schema);
    expect(all.context.window).toEqual({ name: 'all', first_day: null, last_day: today() });
    expect(all.total).toBe(await directCount(manifest.analysisIds.collected, null, today()));
    const custom = expectServed(await call(api, `${base()}?from=${daysAgo(10)}&to=${daysAgo(8)}&limit=100`, key()), schema);
    expect(custom.context.window).toEqual({ name: 'custom', first_day: daysAgo(10), last_day: daysAgo(8) });
    expect(custom.total).toBe(await directCount(manifest.analysisIds.collected, daysAgo(10), daysAgo(8)));
    expect(custom.items.every((i) => i.captured_at >= `${daysAgo(10)}T` && i.captured_at < `${daysAgo(7)}T`)).toBe(true);
    // The widest custom window (366 days) covers the whole demo history (130 days).
    const widest = expectServed(await call(api, `${base()}?from=${daysAgo(365)}&to=${today()}&limit=1`, key()), schema);
    expect(widest.total).toBe(all.total);
    const future = expectServed(await call(api, `${base()}?from=2099-01-01&to=2099-12-31&limit=1`, key()), schema);
    expect(future.total).toBe(0);
    const oneDay = expectServed(await call(api, `${base()}?from=${daysAgo(9)}&to=${daysAgo(9)}&limit=1`, key()), schema);
    expect(oneDay.total).toBeGreaterThan(0);

    const refusals: [string, string][] = [
      ['window=last-run', 'window'],
      ['window=60d', 'window'],
      ['window=7d&from=2026-01-01&to=2026-01-02', 'window'],
      [`from=${daysAgo(3)}`, 'to'],
      [`to=${daysAgo(3)}`, 'from'],
      [`from=${daysAgo(1)}&to=${daysAgo(3)}`, 'from'],
      ['from=2026-02-30&to=2026-03-01', 'from'],
      ['from=0001-01-01&to=0001-01-02', 'from'],
      ['from=2099-12-31&to=9999-12-31', 'to'],
      [`from=${daysAgo(366)}&to=${today()}`, 'to'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=07', 'limit'],
      ['limit=5&limit=6', 'limit'],
      ['offset=10', 'offset'],
    ];
    for (const [qs, param] of refusals) expectError(await call(api, `${base()}?${qs}`, key()), 422, 'invalid_request', { param });
  });

  test('a cursor replayed under another window, from/to, analysis or key: 422 cursor_expired', async () => {
    const first = expectServed(await call(api, `${base()}?window=90d&limit=7`, key()), schema);
    const cursor = first.next_cursor!;
    expect(cursor).toBeTruthy();
    // Same scope (analysis by id instead of slug): continues.
    const next = expectServed(
      await call(api, withCursor(`${base(manifest.analysisIds.collected)}?window=90d&limit=7`, cursor), key()),
      schema,
    );
    expect(next.items[0]!.id).not.toBe(first.items[6]!.id);
    // The limit is not part of the scope.
    expectServed(await call(api, withCursor(`${base()}?window=90d&limit=100`, cursor), key()), schema);

    const expired = [
      [withCursor(`${base()}?window=30d&limit=7`, cursor), key()],
      [withCursor(`${base()}?limit=7`, cursor), key()],
      [withCursor(`${base()}?window=all&limit=7`, cursor), key()],
      [withCursor(`${base()}?from=${daysAgo(89)}&to=${today()}&limit=7`, cursor), key()],
      [withCursor(`${base(manifest.analyses.other_brand)}?window=90d&limit=7`, cursor), key()],
      [withCursor(`${base()}?window=90d&limit=7`, cursor), manifest.keys.brand],
      [withCursor(`${base()}?window=90d&limit=7`, cursor), manifest.keys.analysis],
    ] as const;
    for (const [path, k] of expired) expectError(await call(api, path, k), 422, 'cursor_expired', { budget: true });

    // A custom-window cursor is bound to its days.
    const custom = expectServed(await call(api, `${base()}?from=${daysAgo(10)}&to=${daysAgo(8)}&limit=7`, key()), schema);
    expectError(
      await call(api, withCursor(`${base()}?from=${daysAgo(10)}&to=${daysAgo(7)}&limit=7`, custom.next_cursor!), key()),
      422,
      'cursor_expired',
    );
    expectServed(await call(api, withCursor(`${base()}?from=${daysAgo(10)}&to=${daysAgo(8)}&limit=7`, custom.next_cursor!), key()), schema);
    // Another read's cursor is not this read's.
    const analyses = await call(api, '/analyses?limit=1', key());
    expectError(await call(api, withCursor(`${base()}?window=90d`, analyses.body.next_cursor), key()), 422, 'cursor_expired');
  });

  test('an altered or garbage cursor: 422 invalid_request with param cursor', async () => {
    const first = expectServed(await call(api, `${base()}?window=90d&limit=7`, key()), schema);
    const cursor = first.next_cursor!;
    const [payload, mac] = cursor.split('.') as [string, string];
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    // Rewrite the position inside the payload and keep the old signature.
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    decoded.p.first = '2000-01-01';
    const forged = `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${mac}`;
    for (const bad of [flip(cursor, 5), `${payload}.${flip(mac, 3)}`, forged, `${cursor}x`, `${cursor}.x`, 'garbage', '', payload]) {
      expectError(await call(api, withCursor(`${base()}?window=90d&limit=7`, bad), key()), 422, 'invalid_request', { param: 'cursor' });
    }
  });

  test('never collected: 200, no answers; out of reach: analysis_not_found', async () => {
    const never = expectServed(await call(api, base(manifest.analyses.never_collected), key()), schema);
    expect(never).toMatchObject({ items: [], next_cursor: null, truncated: false, total: 0 });
    expectError(await call(api, base(manifest.analyses.other_brand), manifest.keys.brand), 404, 'analysis_not_found');
    expectError(await call(api, base(manifest.analyses.collected), manifest.keys.other_workspace), 404, 'analysis_not_found');
  });
});
