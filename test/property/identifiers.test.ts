import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { z } from 'zod';
import { getAnswer, listAnswers } from '#shared/reads/catalog/answers.js';
import { getRun } from '#shared/reads/catalog/runs.js';
import { listGroupPrompts } from '#shared/reads/figures/groups.js';
import { getAnalysis } from '#shared/reads/identity/analyses.js';
import type { Queryable } from '#shared/store/queryable.js';
import { freshTableName, type LocalApi, startApi } from '../../local/stack.js';
import { createBudgetTable } from '../../local/stores.js';
import { connect, withoutRateLimit } from '../mcp/support.js';
import { call, dynamoEndpoint, expectError, expectServed, testConfig } from '../support/api.js';
import { warmOpenApiValidators } from '../support/openapi.js';
import { type Dataset, wipe, writeDataset } from './dataset.js';
import { startWritableStore, type WritableStore } from './writable-store.js';

/**
 * Identifiers of every form the store holds are accepted wherever the API hands
 * them out or takes them back (cursors, path parameters, MCP arguments), in capitals too; a slug and an
 * identifier cannot be confused (migration 010, docs/data-contract.md#identifiers-and-slugs).
 */

const nilLike = (n: number) => `00000000-0000-0000-0000-${n.toString(16).padStart(12, '0')}`;
const maxLike = (n: number) => `ffffffff-ffff-ffff-ffff-${(0xffffffffffff - n).toString(16)}`;
const SECRET = 'geo_live_IdentifierForms000000000000000000000000';
const T = '2025-01-10T08:00:00.000000Z';

/** One analysis whose every identifier is nil-like, max-like or of no RFC version; five answers captured at the same instant. */
const DATASET: Dataset = {
  secret: SECRET,
  workspace: nilLike(1),
  user: maxLike(1),
  brand: '12345678-1234-1234-1234-1234567890ab',
  key: nilLike(2),
  engines: ['chatgpt'],
  analyses: [
    {
      id: nilLike(3),
      slug: 'forms',
      name: 'Identifier forms',
      owned: ['acme.com'],
      engines: ['chatgpt'],
      competitors: [],
      groups: [{ id: 'ffffffff-ffff-ffff-ffff-ffffffffffff', name: 'Max' }],
      prompts: [
        {
          id: nilLike(4),
          text: 'Which?',
          createdAt: '2024-12-01T00:00:00.000Z',
          group: 'ffffffff-ffff-ffff-ffff-ffffffffffff',
          finalGroup: null,
        },
      ],
      runs: [
        {
          id: 'abcdef01-2345-6789-abcd-ef0123456789',
          state: 'finished',
          startedAt: T,
          collected: true,
          recipe: 'r1',
          reextract: false,
          engines: [{ engine: 'chatgpt', expected: 5, collected: 5, extracted: 5, failed: 0 }],
        },
      ],
      answers: [],
      firstAnswers: [],
    },
  ],
};
const A = DATASET.analyses[0] as Dataset['analyses'][number];
const RUN = (A.runs[0] as { id: string }).id;
// Answer ids sort 1 > 0-ish: the first page of one ends on 00000000-0000-0000-0000-000000000001 at the latest.
const ANSWERS = ['00000000-0000-0000-0000-000000000000', nilLike(1), nilLike(2), maxLike(2), 'ffffffff-ffff-ffff-ffff-ffffffffffff'].map(
  (id, i) => ({
    id,
    run: RUN,
    prompt: A.prompts[0]?.id as string,
    engine: 'chatgpt',
    capturedAt: T,
    at: 0n,
    text: `Answer ${i}`,
    state: 'extracted' as const,
    mentions: [{ position: 1, brand: 'Acme', tracked: true, competitor: null, sentiment: null }],
    citations: [],
  }),
);
A.answers = ANSWERS;
A.firstAnswers = ANSWERS;
/** Most recent first, then id descending: the answer list's order. */
const LISTED = ANSWERS.map((x) => x.id).sort((x, y) => (x < y ? 1 : -1));

let store: WritableStore;
let api: LocalApi;
let mcp: Client;
beforeAll(async () => {
  warmOpenApiValidators();
  store = await startWritableStore('geo_test_identifiers');
  await store.write(async (db) => {
    await wipe(db);
    await writeDataset(db, DATASET);
  });
  const table = freshTableName();
  await createBudgetTable(dynamoEndpoint(), table);
  api = await startApi(testConfig(store.readerUrl, { BUDGET_TABLE: table }));
  mcp = await connect(api, SECRET);
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  await api?.close();
  await store?.close();
});

describe('cursors carry any identifier the store holds', () => {
  test.each([1, 2, 3])('the answer list pages through nil-like, max-like and non-RFC ids tied on captured_at, limit=%i', async (limit) => {
    const seen: string[] = [];
    let path: string | null = `/analyses/forms/answers?window=all&limit=${limit}`;
    while (path) {
      const page: z.infer<typeof listAnswers.output> = expectServed(await call(api, path, SECRET), listAnswers.output);
      seen.push(...page.items.map((x) => x.id));
      expect(page.total).toBe(ANSWERS.length);
      path = page.next_cursor ? `/analyses/forms/answers?window=all&limit=${limit}&cursor=${encodeURIComponent(page.next_cursor)}` : null;
    }
    expect(seen).toEqual(LISTED);
  });

  test('a page ending on 00000000-0000-0000-0000-000000000001: its cursor is taken back', async () => {
    const first = expectServed(await call(api, '/analyses/forms/answers?window=all&limit=3', SECRET), listAnswers.output);
    expect(first.items.at(-1)?.id).toBe(nilLike(2));
    const second = expectServed(
      await call(api, `/analyses/forms/answers?window=all&limit=1&cursor=${encodeURIComponent(first.next_cursor as string)}`, SECRET),
      listAnswers.output,
    );
    expect(second.items.map((x) => x.id)).toEqual([nilLike(1)]);
    const third = expectServed(
      await call(api, `/analyses/forms/answers?window=all&limit=1&cursor=${encodeURIComponent(second.next_cursor as string)}`, SECRET),
      listAnswers.output,
    );
    expect(third.items.map((x) => x.id)).toEqual(['00000000-0000-0000-0000-000000000000']);
    expect(third.next_cursor).toBeNull();
  });
});

describe('identifiers in capitals name what their lower-case form names, in every read that takes one', () => {
  const upper = (s: string) => s.toUpperCase();
  test.each([
    ['analysis', () => `/analyses/${upper(A.id)}`, () => `/analyses/${A.id}`],
    ['run', () => `/analyses/forms/runs/${upper(RUN)}`, () => `/analyses/forms/runs/${RUN}`],
    ['answer', () => `/analyses/forms/answers/${upper(nilLike(1))}`, () => `/analyses/forms/answers/${nilLike(1)}`],
    [
      'group',
      () => `/analyses/forms/groups/${upper('ffffffff-ffff-ffff-ffff-ffffffffffff')}/prompts`,
      () => `/analyses/forms/groups/ffffffff-ffff-ffff-ffff-ffffffffffff/prompts`,
    ],
    ['analysis and answer', () => `/analyses/${upper(A.id)}/answers/${upper(maxLike(2))}`, () => `/analyses/forms/answers/${maxLike(2)}`],
  ])('%s: the same 200 and body', async (_what, capitals, lower) => {
    const a = await call(api, capitals(), SECRET);
    const b = await call(api, lower(), SECRET);
    expect(a.status).toBe(200);
    expect(a.body).toEqual(b.body);
  });

  test('the body names each identifier in lower case, as the store does', async () => {
    expect(expectServed(await call(api, `/analyses/${upper(A.id)}`, SECRET), getAnalysis.output).id).toBe(A.id);
    expect(expectServed(await call(api, `/analyses/forms/runs/${upper(RUN)}`, SECRET), getRun.output).id).toBe(RUN);
    expect(expectServed(await call(api, `/analyses/forms/answers/${upper(maxLike(2))}`, SECRET), getAnswer.output).id).toBe(maxLike(2));
    const group = expectServed(
      await call(api, `/analyses/forms/groups/FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF/prompts`, SECRET),
      listGroupPrompts.output,
    );
    expect(group.total).toBe(0);
  });

  test.each([
    ['analysis', `/analyses/00000000-0000-0000-0000-00000000AAAA`, 'analysis_not_found'],
    ['run', `/analyses/forms/runs/00000000-0000-0000-0000-00000000AAAA`, 'not_found'],
    ['answer', `/analyses/forms/answers/00000000-0000-0000-0000-00000000AAAA`, 'not_found'],
    ['group', `/analyses/forms/groups/00000000-0000-0000-0000-00000000AAAA/prompts`, 'not_found'],
    ['run, not an identifier', `/analyses/forms/runs/LATEST`, 'not_found'],
    ['group, not an identifier', `/analyses/forms/groups/NONE/prompts`, 'not_found'],
  ])('%s absent, in capitals: 404 %s', async (_what, path, code) => {
    expectError(await call(api, path, SECRET), 404, code);
  });

  test('MCP arguments: capitals give the same result as lower case', async () => {
    const pairs: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
      ['get_analysis', { analysis: upper(A.id) }, { analysis: A.id }],
      ['get_run', { analysis: upper(A.id), run: upper(RUN) }, { analysis: 'forms', run: RUN }],
      ['get_answer', { analysis: 'forms', answer: upper(nilLike(2)) }, { analysis: 'forms', answer: nilLike(2) }],
      [
        'list_group_prompts',
        { analysis: 'forms', group: upper('ffffffff-ffff-ffff-ffff-ffffffffffff') },
        { analysis: 'forms', group: 'ffffffff-ffff-ffff-ffff-ffffffffffff' },
      ],
      ['list_answers', { analysis: upper(A.id), window: 'all' }, { analysis: 'forms', window: 'all' }],
    ];
    for (const [tool, capitals, lower] of pairs) {
      const a = await mcp.callTool({ name: tool, arguments: capitals });
      const b = await mcp.callTool({ name: tool, arguments: lower });
      expect({ tool, isError: a.isError ?? false }).toEqual({ tool, isError: false });
      if (tool === 'list_answers') {
        // Cursors are signed per call but name the same position.
        expect((a.structuredContent as { items: unknown[] }).items).toEqual((b.structuredContent as { items: unknown[] }).items);
      } else {
        expect(withoutRateLimit(a.structuredContent)).toEqual(withoutRateLimit(b.structuredContent));
      }
    }
  });

  test('MCP: an answer list cursor ending on a nil-like id is taken back', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const r = await mcp.callTool({
        name: 'list_answers',
        arguments: { analysis: 'forms', window: 'all', limit: 2, ...(cursor ? { cursor } : {}) },
      });
      expect(r.isError ?? false).toBe(false);
      const page = r.structuredContent as { items: Array<{ id: string }>; next_cursor: string | null };
      seen.push(...page.items.map((x) => x.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(LISTED);
  });
});

describe('a slug and an identifier cannot be confused (migration 010)', () => {
  /** The SQLSTATE and constraint an owner's write ends with, or 'accepted' (rolled back either way). */
  async function attempt(sql: string, params: unknown[]): Promise<string> {
    return store.write(async (db: Queryable) => {
      await db.query('BEGIN');
      try {
        await db.query(sql, params);
        return 'accepted';
      } catch (err) {
        const e = err as { code?: string; constraint?: string; message?: string };
        return `${e.code} ${e.constraint ?? /constraint "([^"]+)"/.exec(e.message ?? '')?.[1]}`;
      } finally {
        await db.query('ROLLBACK');
      }
    });
  }
  const analysis = (slug: string) =>
    attempt(
      `INSERT INTO analyses (id, workspace_id, brand_id, slug, name, engines) VALUES ('aaaaaaaa-0000-0000-0000-000000000001', $1, $2, $3, 'x', '{chatgpt}')`,
      [DATASET.workspace, DATASET.brand, slug],
    );

  test.each([
    '00000000-0000-0000-0000-000000000001',
    'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
    '12345678-1234-1234-1234-1234567890aB',
    '00000000-0000-0000-0000-000000000000',
  ])('an analysis slug shaped like an identifier (%s) is refused by the store: 23514', async (slug) => {
    expect(await analysis(slug)).toBe('23514 analyses_slug_not_uuid');
  });

  test.each([
    '00000000-0000-0000-0000-00000000000g',
    '{00000000-0000-0000-0000-000000000001}',
    '00000000000000000000000000000001',
    '00000000-0000-0000-0000-0000000000011',
    'forms-2',
  ])('a slug of another shape (%s) is accepted', async (slug) => {
    expect(await analysis(slug)).toBe('accepted');
  });

  test('so is a workspace slug shaped like an identifier, and a prompt group with the nil identifier (it stands for none)', async () => {
    expect(
      await attempt(
        `INSERT INTO workspaces (id, name, slug, plan_key) VALUES ('aaaaaaaa-0000-0000-0000-000000000002', 'w', $1, 'property')`,
        ['ABCDEF01-2345-6789-ABCD-EF0123456789'],
      ),
    ).toBe('23514 workspaces_slug_not_uuid');
    expect(
      await attempt(`INSERT INTO prompt_groups (id, analysis_id, name) VALUES ('00000000-0000-0000-0000-000000000000', $1, 'nil')`, [A.id]),
    ).toBe('23514 prompt_groups_id_not_nil');
  });

  test('a reference shaped like an identifier names an analysis by id only: absent, 404 analysis_not_found', async () => {
    expect(expectServed(await call(api, `/analyses/${A.id}`, SECRET), getAnalysis.output).slug).toBe('forms');
    expectError(await call(api, '/analyses/00000000-0000-0000-0000-0000000000ff', SECRET), 404, 'analysis_not_found');
    // The slug in capitals is another slug: slugs are compared as written.
    expectError(await call(api, '/analyses/FORMS', SECRET), 404, 'analysis_not_found');
  });
});

describe('paging while the pipeline writes (docs/contract.md#common-parameters)', () => {
  test('an answer written behind the cursor is not returned, one written ahead is; total counts both', async () => {
    const path = '/analyses/forms/answers?window=all&limit=2';
    const first = expectServed(await call(api, path, SECRET), listAnswers.output);
    expect(first.items.map((x) => x.id)).toEqual(LISTED.slice(0, 2));
    const behind = 'bbbbbbbb-0000-0000-0000-000000000001';
    const ahead = 'aaaaaaaa-0000-0000-0000-000000000001';
    const insert = (db: Queryable, id: string, at: string) =>
      db.query(
        `INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state) VALUES ($1, $2, $3, $4, 'chatgpt', $5, 'late', 'pending')`,
        [id, A.id, RUN, A.prompts[0]?.id, at],
      );
    await store.write(async (db) => {
      await insert(db, behind, '2025-01-10T09:00:00Z');
      await insert(db, ahead, '2025-01-10T07:00:00Z');
    });
    try {
      const rest: string[] = [];
      const totals: number[] = [];
      let cursor = first.next_cursor;
      while (cursor) {
        const page: z.infer<typeof listAnswers.output> = expectServed(
          await call(api, `${path}&cursor=${encodeURIComponent(cursor)}`, SECRET),
          listAnswers.output,
        );
        rest.push(...page.items.map((x) => x.id));
        totals.push(page.total);
        cursor = page.next_cursor;
      }
      expect(rest).toEqual([...LISTED.slice(2), ahead]);
      expect(new Set(totals)).toEqual(new Set([ANSWERS.length + 2]));
    } finally {
      await store.write(async (db) => {
        await db.query('DELETE FROM answers WHERE id = ANY ($1::uuid[])', [[behind, ahead]]);
      });
    }
  });
});
