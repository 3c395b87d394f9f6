import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Store } from '../../../local/pglite.js';
import { seededStore } from '../../support/own-store.js';
import { refusalOf } from './refusals.js';

/**
 * An answer and what it refers to belong to one analysis (shared/admin/sql/migrations/023): the store
 * refuses an answer whose run or prompt is another analysis's, and a mention attributed to another
 * analysis's competitor, by insert or update, with the constraint's name; rows within one analysis pass.
 */
let store: Store;
beforeAll(async () => {
  ({ store } = await seededStore());
}, 120_000);
afterAll(() => store.pg.close());

const one = async <T>(sql: string): Promise<T> => (await store.db.query(sql)).rows[0] as T;

describe('one analysis per answer', () => {
  test("an answer's run or prompt of another analysis, and a mention of another analysis's competitor: refused, 23514", async () => {
    const mention = await one<{ answer_id: string; position: number; analysis_id: string; engine: string }>(
      `SELECT m.answer_id, m.position, a.analysis_id, a.engine FROM mentions m JOIN answers a ON a.id = m.answer_id ORDER BY 1, 2 LIMIT 1`,
    );
    // A run of another analysis that collects from the answer's engine: one that does not is refused for
    // its engine first (migration 025).
    const other = await one<{ analysis: string; run: string; prompt: string; competitor: string }>(
      `SELECT x.id AS analysis,
              (SELECT r.id FROM runs r JOIN run_engines e ON e.run_id = r.id AND e.engine = '${mention.engine}'
                WHERE r.analysis_id = x.id LIMIT 1) AS run,
              (SELECT id FROM prompts WHERE analysis_id = x.id LIMIT 1) AS prompt,
              (SELECT id FROM competitors WHERE analysis_id = x.id LIMIT 1) AS competitor
         FROM analyses x
        WHERE x.id <> '${mention.analysis_id}'
          AND EXISTS (SELECT 1 FROM runs r JOIN run_engines e ON e.run_id = r.id AND e.engine = '${mention.engine}' WHERE r.analysis_id = x.id)
          AND EXISTS (SELECT 1 FROM competitors WHERE analysis_id = x.id)
        ORDER BY x.id LIMIT 1`,
    );
    expect(other).toBeDefined();
    const cases: Array<[string, string, string]> = [
      [`UPDATE answers SET run_id = '${other.run}' WHERE id = '${mention.answer_id}'`, 'answers_of_one_analysis', 'run'],
      [`UPDATE answers SET prompt_id = '${other.prompt}' WHERE id = '${mention.answer_id}'`, 'answers_of_one_analysis', 'prompt'],
      [
        `INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state)
         SELECT gen_random_uuid(), analysis_id, run_id, '${other.prompt}', engine, captured_at, 'x', 'pending' FROM answers WHERE id = '${mention.answer_id}'`,
        'answers_of_one_analysis',
        'prompt',
      ],
      [
        `UPDATE mentions SET competitor_id = '${other.competitor}' WHERE answer_id = '${mention.answer_id}' AND position = ${mention.position}`,
        'mentions_of_own_competitors',
        'competitor',
      ],
      [
        `INSERT INTO mentions (answer_id, position, brand_name, competitor_id) VALUES ('${mention.answer_id}', 100, 'Other', '${other.competitor}')`,
        'mentions_of_own_competitors',
        'competitor',
      ],
    ];
    for (const [sql, constraint, part] of cases) {
      const refused = await refusalOf(store.db, sql);
      expect({ sql, code: refused?.code, constraint: refused?.constraint }).toEqual({ sql, code: '23514', constraint });
      expect(refused?.message).toContain(`its ${part} belongs to another analysis`);
    }
  });

  test("within one analysis the same writes pass: the analysis's own run, prompt and competitor", async () => {
    const mention = await one<{ answer_id: string; position: number; run: string; prompt: string; competitor: string | null }>(
      `SELECT m.answer_id, m.position, a.run_id AS run, a.prompt_id AS prompt,
              (SELECT id FROM competitors WHERE analysis_id = a.analysis_id LIMIT 1) AS competitor
         FROM mentions m JOIN answers a ON a.id = m.answer_id
        WHERE EXISTS (SELECT 1 FROM competitors WHERE analysis_id = a.analysis_id) ORDER BY 1, 2 LIMIT 1`,
    );
    expect(
      await refusalOf(
        store.db,
        `UPDATE answers SET run_id = '${mention.run}', prompt_id = '${mention.prompt}' WHERE id = '${mention.answer_id}'`,
      ),
    ).toBeNull();
    expect(
      await refusalOf(
        store.db,
        `UPDATE mentions SET competitor_id = '${mention.competitor}' WHERE answer_id = '${mention.answer_id}' AND position = ${mention.position}`,
      ),
    ).toBeNull();
  });
});
