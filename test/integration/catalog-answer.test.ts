import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import type { z } from 'zod';
import { HOSTILE_ANSWERS, HOSTILE_TEXTS } from '#shared/admin/demo.js';
import { getAnswer, listAnswers } from '#shared/reads/catalog/answers.js';
import { getRun } from '#shared/reads/catalog/runs.js';
import type { LocalApi } from '../../local/stack.js';
import { call, expectError, expectServed, manifest, readerUrl, startTestApi } from '../support/api.js';

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

type Answer = z.infer<typeof getAnswer.output>;
type Item = z.infer<typeof listAnswers.output>['items'][number];
const key = () => manifest.keys.workspace;
const one = (id: string, analysis = manifest.analyses.collected) => `/analyses/${analysis}/answers/${id}`;

const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);

async function listAll(analysis: string, qs: string): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | null = null;
  do {
    const path: string = `/analyses/${analysis}/answers?${qs}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = expectServed(await call(api, path, key()), listAnswers.output);
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

const consecutive = (positions: number[]) => positions.every((p, i) => p === i + 1);

describe('GET /analyses/{analysis}/answers/{answer} (get_answer)', () => {
  // The last three days by default (PGlite answers one query at a time): two daily runs whatever the hour,
  // since before today's run time the demo holds none for today. CATALOG_FULL_SCAN=1 opens every answer.
  test('every answer of the last three days (a sample of the full scan) opens, agreeing with the list; positions 1..n', async () => {
    const window = process.env.CATALOG_FULL_SCAN ? 'window=all' : `from=${daysAgo(2)}&to=${daysAgo(0)}`;
    const items = await listAll(manifest.analyses.collected, window);
    expect(items.length).toBeGreaterThan(200);
    let mentioned = 0;
    for (const item of items) {
      const a = expectServed(await call(api, one(item.id), key()), getAnswer.output);
      expect({ id: a.id, engine: a.engine, prompt_id: a.prompt.id, run_id: a.run.id, captured_at: a.captured_at }).toEqual(item);
      expect(a.extraction.state).toBe('extracted');
      expect(a.mentions).not.toBeNull();
      expect(a.citations).not.toBeNull();
      expect(consecutive(a.mentions!.map((m) => m.position))).toBe(true);
      expect(consecutive(a.citations!.map((c) => c.position))).toBe(true);
      expect(a.mentions!.filter((m) => m.kind === 'tracked').length).toBeLessThanOrEqual(1);
      for (const m of a.mentions!) expect(m.competitor_id !== null).toBe(m.kind === 'direct_competitor');
      mentioned += a.mentions!.length;
    }
    expect(mentioned).toBeGreaterThan(0);
  }, 1_800_000);

  test('hostile texts come back byte-identical, as JSON data, with brands in order of appearance', async () => {
    expect(manifest.hostileAnswerIds).toHaveLength(HOSTILE_TEXTS.length);
    for (const [i, id] of manifest.hostileAnswerIds.entries()) {
      const reply = await call(api, one(id), key());
      const a: Answer = expectServed(reply, getAnswer.output);
      expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const stored = (await db.query<{ text: string }>('SELECT text FROM answers WHERE id = $1', [id])).rows[0]!.text;
      expect(a.text).toBe(HOSTILE_TEXTS[i]);
      expect(a.text).toBe(stored);
      expect(Buffer.from(a.text, 'utf8').equals(Buffer.from(HOSTILE_TEXTS[i]!, 'utf8'))).toBe(true);
      // Escaped as JSON and nothing more: no HTML entities, no stripping.
      expect(reply.text).toContain(JSON.stringify(HOSTILE_TEXTS[i]));
      expect(a.mentions!.map((m) => m.brand)).toEqual(HOSTILE_ANSWERS[i]!.brands);
      expect(a.mentions!.map((m) => m.position)).toEqual(HOSTILE_ANSWERS[i]!.brands.map((_, n) => n + 1));
      expect(a.mentions![0]).toMatchObject({ brand: 'Acme', kind: 'tracked', competitor_id: null });
    }
    const piedPiper = expectServed(await call(api, one(manifest.hostileAnswerIds[6]!), key()), getAnswer.output);
    expect(piedPiper.mentions![1]).toMatchObject({ brand: 'Pied Piper', kind: 'indirect_competitor', competitor_id: null });
    const initech = expectServed(await call(api, one(manifest.hostileAnswerIds[0]!), key()), getAnswer.output);
    expect(initech.mentions![1]).toMatchObject({ brand: 'Initech', kind: 'direct_competitor' });
    expect(initech.mentions![1]!.competitor_id).not.toBeNull();
    // Never a character offset (docs/contract.md#what-the-service-does item 7).
    expect(JSON.stringify(initech)).not.toMatch(/offset|"start"|"end"|char/i);
  });

  test('an answer of a run still extracting says so with its state, not with empty lists', async () => {
    const run = expectServed(await call(api, `/analyses/${manifest.analyses.extraction_late}/runs/latest`, key()), getRun.output);
    const page = expectServed(
      await call(api, `/analyses/${manifest.analyses.extraction_late}/answers?window=7d&limit=100`, key()),
      listAnswers.output,
    );
    const late = page.items.filter((i) => i.run_id === run.id);
    expect(late.length).toBe(run.totals.collected);
    const a = expectServed(await call(api, one(late[0]!.id, manifest.analyses.extraction_late), key()), getAnswer.output);
    expect(a.extraction).toEqual({ state: 'pending', recipe: null });
    expect(a.mentions).toBeNull();
    expect(a.citations).toBeNull();
    const earlier = page.items.find((i) => i.run_id !== run.id)!;
    const done = expectServed(await call(api, one(earlier.id, manifest.analyses.extraction_late), key()), getAnswer.output);
    expect(done.extraction.state).toBe('extracted');
    expect(done.extraction.recipe).not.toBeNull();
    expect(Array.isArray(done.mentions)).toBe(true);
  });

  test('an answer of another analysis, unknown or malformed: 404 not_found, never 500', async () => {
    const other = expectServed(await call(api, `/analyses/${manifest.analyses.other_brand}/answers?limit=1`, key()), listAnswers.output)
      .items[0]!;
    expectServed(await call(api, one(other.id, manifest.analyses.other_brand), key()), getAnswer.output);
    const own = manifest.hostileAnswerIds[0]!;
    const refs = [
      other.id,
      '00000000-0000-4000-8000-000000000000',
      'abc',
      own.slice(0, -1),
      `${own}0`,
      `${own.slice(0, -1)}g`,
      "1' OR '1'='1",
      '../runs/latest',
      'null',
      'ÿ',
    ];
    for (const ref of refs) expectError(await call(api, one(encodeURIComponent(ref)), key()), 404, 'not_found', { budget: true });
    // Upper case is the same identifier.
    expectServed(await call(api, one(own.toUpperCase()), key()), getAnswer.output);
    // Out of reach: the analysis refusal, identical to a missing analysis.
    expectError(await call(api, one(other.id, manifest.analyses.other_brand), manifest.keys.brand), 404, 'analysis_not_found');
    expectError(await call(api, `${one(own)}?window=7d`, key()), 422, 'invalid_request', { param: 'window' });
  });
});
