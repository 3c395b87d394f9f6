import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { freshStore, type Store } from '../../../local/pglite.js';

/**
 * Window resolution and the month split, done by the store in the same call as the figures
 * (fig_resolve_window and fig_segments, shared/admin/sql/functions/figures.sql):
 * docs/decisions.md#decisions-the-contract-leaves-open on a tiny history, checked case by case.
 */
let store: Store;
const A = 'a0000000-0000-4000-8000-000000000001';
const B = 'a0000000-0000-4000-8000-000000000002';

beforeAll(async () => {
  store = await freshStore();
  await store.db.query(`
    INSERT INTO plans VALUES ('p', 'P', true, 10);
    INSERT INTO workspaces (id, name, slug, plan_key) VALUES ('b0000000-0000-4000-8000-000000000001', 'W', 'w', 'p');
    INSERT INTO brands (id, workspace_id, name) VALUES ('c0000000-0000-4000-8000-000000000001', 'b0000000-0000-4000-8000-000000000001', 'X');
    INSERT INTO analyses (id, workspace_id, brand_id, slug, name, engines) VALUES
      ('${A}', 'b0000000-0000-4000-8000-000000000001', 'c0000000-0000-4000-8000-000000000001', 'a', 'A', '{chatgpt}'),
      ('${B}', 'b0000000-0000-4000-8000-000000000001', 'c0000000-0000-4000-8000-000000000001', 'b', 'B', '{chatgpt}');
    INSERT INTO runs (id, analysis_id, state, started_at, collected_at, finished_at) VALUES
      ('d0000000-0000-4000-8000-000000000001', '${A}', 'finished', '2024-01-05T06:00:00Z', '2024-01-05T07:00:00Z', '2024-01-05T08:00:00Z'),
      ('d0000000-0000-4000-8000-000000000002', '${A}', 'finished', '2025-03-09T06:00:00Z', '2025-03-09T07:00:00Z', '2025-03-09T08:00:00Z'),
      ('d0000000-0000-4000-8000-000000000003', '${A}', 'extracting', '2025-03-10T23:30:00Z', '2025-03-11T00:10:00Z', NULL),
      ('d0000000-0000-4000-8000-000000000004', '${A}', 'collecting', '2025-03-12T06:00:00Z', NULL, NULL);`);
}, 60_000);
afterAll(() => store.pg.close());

interface W {
  name: string;
  anchor: { id: string; day: string } | null;
  before: { id: string } | null;
  first_day: string | null;
  cur_kind: string | null;
  cur_from: string | null;
  cur_to: string | null;
  cur_run: string | null;
  prev_kind: string | null;
  prev_from: string | null;
  prev_to: string | null;
  prev_run: string | null;
}

async function resolve(analysis: string, name: string | null, from: string | null = null, to: string | null = null): Promise<W> {
  const { rows } = await store.db.query<{ w: W }>('SELECT to_json(fig_resolve_window($1::uuid, $2, $3::date, $4::date)) AS w', [
    analysis,
    name,
    from,
    to,
  ]);
  return rows[0]!.w;
}

async function segments(from: string, to: string): Promise<Array<[string, string, string]>> {
  const { rows } = await store.db.query<{ kind: string; lo: string; hi: string }>(
    `SELECT kind, lo::text, hi::text FROM fig_segments(ROW('custom', NULL, NULL, NULL, 'days', $1::date, $2::date, NULL, NULL, NULL, NULL, NULL)::fig_window)
      ORDER BY kind DESC, lo`,
    [from, to],
  );
  return rows.map((r) => [r.kind, r.lo, r.hi]);
}

describe('window resolution (docs/decisions.md#decisions-the-contract-leaves-open)', () => {
  test('the anchor is the latest run whose collection ended (extraction late included), on the UTC day it started', async () => {
    const w = await resolve(A, '7d');
    expect(w.anchor).toMatchObject({ id: 'd0000000-0000-4000-8000-000000000003', day: '2025-03-10' });
    expect(w).toMatchObject({
      first_day: '2024-01-05',
      cur_kind: 'days',
      cur_from: '2025-03-04',
      cur_to: '2025-03-10',
      prev_kind: 'days',
      prev_from: '2025-02-25',
      prev_to: '2025-03-03',
    });
  });

  test('last-run compares with the previous collection; all with nothing; custom with the equal length just before', async () => {
    expect(await resolve(A, 'last-run')).toMatchObject({
      cur_kind: 'run',
      cur_run: 'd0000000-0000-4000-8000-000000000003',
      cur_from: '2025-03-10',
      prev_kind: 'run',
      prev_run: 'd0000000-0000-4000-8000-000000000002',
      prev_from: '2025-03-09',
    });
    expect(await resolve(A, 'all')).toMatchObject({ cur_kind: 'all', cur_from: '2024-01-05', cur_to: '2025-03-10', prev_kind: null });
    expect(await resolve(A, null, '2024-02-28', '2024-03-01')).toMatchObject({
      name: 'custom',
      cur_from: '2024-02-28',
      cur_to: '2024-03-01',
      prev_from: '2024-02-25',
      prev_to: '2024-02-27',
    });
    expect(await resolve(A, '90d')).toMatchObject({ cur_from: '2024-12-11', prev_from: '2024-09-12', prev_to: '2024-12-10' });
  });

  test('never collected: a named window has nothing to anchor on; a custom one still has its days', async () => {
    expect(await resolve(B, '30d')).toMatchObject({ anchor: null, cur_kind: null, prev_kind: null });
    expect(await resolve(B, null, '2025-01-01', '2025-01-31')).toMatchObject({ anchor: null, cur_kind: 'days', prev_from: '2024-12-01' });
  });

  test('an unknown window name is refused by the store too', async () => {
    await expect(resolve(A, '1d')).rejects.toThrow(/unknown window/);
  });
});

describe('whole months are read from the month aggregates, edge days from the per-run ones', () => {
  test.each([
    [
      '2025-01-15',
      '2025-04-10',
      [
        ['months', '2025-02-01', '2025-03-01'],
        ['days', '2025-01-15', '2025-01-31'],
        ['days', '2025-04-01', '2025-04-10'],
      ],
    ],
    ['2025-02-01', '2025-02-28', [['months', '2025-02-01', '2025-02-01']]],
    ['2024-02-01', '2024-02-28', [['days', '2024-02-01', '2024-02-28']]],
    ['2024-02-01', '2024-02-29', [['months', '2024-02-01', '2024-02-01']]],
    ['2025-03-04', '2025-03-10', [['days', '2025-03-04', '2025-03-10']]],
    ['2025-12-01', '2026-01-31', [['months', '2025-12-01', '2026-01-01']]],
    ['2099-12-31', '2099-12-31', [['days', '2099-12-31', '2099-12-31']]],
    ['2000-01-01', '2000-12-31', [['months', '2000-01-01', '2000-12-01']]],
  ])('%s..%s', async (from, to, expected) => {
    expect(await segments(from, to)).toEqual(expected);
  });
});
