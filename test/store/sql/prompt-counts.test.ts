import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { freshStore, type Store } from '../../../local/pglite.js';

/**
 * The prompt counts (migration 014) are kept by the store on every write to prompts, so they always equal
 * a count of the rows: per analysis and group (the group prompts read's total) and per analysis (MCP's
 * pages of the catalogue). And the store refuses an analysis's 501st prompt, a group name past 300
 * characters and a language past 35 (docs/data-contract.md "Bounds").
 */
let store: Store;
const W = 'b0000000-0000-4000-8000-000000000001';
const BR = 'c0000000-0000-4000-8000-000000000001';
const A = (n: number) => `a0000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const G = (n: number) => `d0000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const NIL = '00000000-0000-0000-0000-000000000000';

const q = (sql: string, params?: unknown[]) => store.db.query(sql, params);

async function counts(): Promise<Record<string, unknown[]>> {
  return {
    groups: (await q(`SELECT analysis_id, group_key, n FROM prompt_group_counts WHERE n > 0 ORDER BY 1, 2`)).rows,
    groupsActual: (
      await q(`SELECT analysis_id, coalesce(group_id, '${NIL}') AS group_key, count(*)::int AS n FROM prompts GROUP BY 1, 2 ORDER BY 1, 2`)
    ).rows,
    totals: (await q(`SELECT analysis_id, n FROM prompt_totals WHERE n > 0 ORDER BY 1`)).rows,
    totalsActual: (await q(`SELECT analysis_id, count(*)::int AS n FROM prompts GROUP BY 1 ORDER BY 1`)).rows,
  };
}

async function expectKept(): Promise<void> {
  const c = await counts();
  expect(c.groups).toEqual(c.groupsActual);
  expect(c.totals).toEqual(c.totalsActual);
}

/** The SQLSTATE and constraint of a refused write, or 'accepted'. */
async function outcome(sql: string, params?: unknown[]): Promise<string> {
  try {
    await q(sql, params);
    return 'accepted';
  } catch (err) {
    const e = err as { code?: string; constraint?: string; message: string };
    return `${e.code} ${e.constraint ?? /constraint "([^"]+)"/.exec(e.message)?.[1] ?? e.message}`;
  }
}

const insertPrompts = (analysis: string, from: number, n: number, group: string | null) =>
  `INSERT INTO prompts (id, analysis_id, group_id, text, language, created_at)
   SELECT ('e0000000-0000-4000-8000-' || lpad(to_hex(p), 12, '0'))::uuid, '${analysis}', ${group ? `'${group}'` : 'NULL'},
          'Question ' || p, 'en', '2025-01-01'::timestamptz + p * interval '1 second'
     FROM generate_series(${from}, ${from + n - 1}) p`;

beforeAll(async () => {
  store = await freshStore();
  await q(`
    INSERT INTO plans VALUES ('p', 'P', true, 10);
    INSERT INTO workspaces (id, name, slug, plan_key) VALUES ('${W}', 'W', 'w', 'p');
    INSERT INTO brands (id, workspace_id, name) VALUES ('${BR}', '${W}', 'X');
    INSERT INTO analyses (id, workspace_id, brand_id, slug, name, engines)
    VALUES ('${A(1)}', '${W}', '${BR}', 'one', 'One', '{chatgpt}'), ('${A(2)}', '${W}', '${BR}', 'two', 'Two', '{chatgpt}');
    INSERT INTO prompt_groups (id, analysis_id, name) VALUES ('${G(1)}', '${A(1)}', 'G1'), ('${G(2)}', '${A(1)}', 'G2'), ('${G(3)}', '${A(2)}', 'G3');`);
}, 60_000);
afterAll(() => store.pg.close());

describe('prompt counts', () => {
  test('insert (one row and many), move between groups and analyses, edit, delete and truncate keep them equal to a count', async () => {
    await q(insertPrompts(A(1), 1, 1, null));
    await q(insertPrompts(A(1), 2, 120, G(1)));
    await q(insertPrompts(A(2), 200, 30, G(3)));
    await expectKept();
    await q(`UPDATE prompts SET group_id = '${G(2)}' WHERE analysis_id = '${A(1)}' AND created_at < '2025-01-01T00:00:40Z'`);
    await q(`UPDATE prompts SET group_id = NULL WHERE id IN (SELECT id FROM prompts WHERE group_id = '${G(1)}' ORDER BY id LIMIT 5)`);
    await q(
      `UPDATE prompts SET analysis_id = '${A(2)}', group_id = '${G(3)}' WHERE group_id = '${G(2)}' AND created_at > '2025-01-01T00:00:30Z'`,
    );
    await q(`UPDATE prompts SET text = text || '?'`);
    await expectKept();
    await q(`DELETE FROM prompts WHERE group_id = '${G(1)}' AND created_at > '2025-01-01T00:01:30Z'`);
    await expectKept();
    const c = await counts();
    expect(c.totalsActual).toHaveLength(2);
    await q('TRUNCATE prompts CASCADE');
    expect(await counts()).toEqual({ groups: [], groupsActual: [], totals: [], totalsActual: [] });
  });

  test('an analysis holds at most 500 prompts: the 501st is refused, in one statement or one by one, moved in or inserted', async () => {
    await q('TRUNCATE prompts CASCADE');
    expect(await outcome(insertPrompts(A(1), 1, 501, null))).toBe('23514 prompts_per_analysis');
    expect(await outcome(insertPrompts(A(1), 1, 500, G(1)))).toBe('accepted');
    expect(await outcome(insertPrompts(A(1), 501, 1, null))).toBe('23514 prompts_per_analysis');
    expect(await outcome(insertPrompts(A(2), 1000, 1, null))).toBe('accepted');
    expect(await outcome(`UPDATE prompts SET analysis_id = '${A(1)}', group_id = NULL WHERE analysis_id = '${A(2)}'`)).toBe(
      '23514 prompts_per_analysis',
    );
    // Moving inside the analysis changes no total.
    expect(await outcome(`UPDATE prompts SET group_id = '${G(2)}' WHERE analysis_id = '${A(1)}'`)).toBe('accepted');
    await expectKept();
    expect((await q(`SELECT n FROM prompt_totals WHERE analysis_id = '${A(1)}'`)).rows).toEqual([{ n: 500 }]);
  });

  test('a group name past 300 characters and a language past 35 are refused; at their bounds accepted', async () => {
    await q('TRUNCATE prompts CASCADE');
    const name = (n: number) => '\u0001'.repeat(n);
    expect(await outcome(`INSERT INTO prompt_groups (id, analysis_id, name) VALUES ('${G(9)}', '${A(2)}', $1)`, [name(301)])).toBe(
      '23514 prompt_groups_name_length',
    );
    expect(await outcome(`INSERT INTO prompt_groups (id, analysis_id, name) VALUES ('${G(9)}', '${A(2)}', $1)`, [name(300)])).toBe(
      'accepted',
    );
    const prompt = `INSERT INTO prompts (id, analysis_id, text, language, created_at) VALUES ('e0000000-0000-4000-8000-000000000001', '${A(2)}', 'Q', $1, now())`;
    expect(await outcome(prompt, ['x'.repeat(36)])).toBe('23514 prompts_language_length');
    expect(await outcome(prompt, ['x'.repeat(35)])).toBe('accepted');
  });
});
