import type { Queryable } from '#shared/store/queryable.js';

/**
 * A small measured analysis for the aggregate tests: 2 engines, 6 prompts (half in a group), runs on 40
 * days over two months, each answer naming the tracked brand or not and citing a source, every run
 * finished as the pipeline finishes it.
 */
export const DRIFT = {
  workspace: 'b1000000-0000-4000-8000-000000000001',
  brand: 'c1000000-0000-4000-8000-000000000001',
  analysis: 'a1000000-0000-4000-8000-000000000001',
  group: 'd1000000-0000-4000-8000-000000000001',
  engines: ['chatgpt', 'gemini'],
  days: 40,
  prompts: 6,
  run: (d: number) => `f1000000-0000-4000-8000-${String(d).padStart(12, '0')}`,
  prompt: (p: number) => `e1000000-0000-4000-8000-${String(p).padStart(12, '0')}`,
};

const runSql = (col: string) => `('f1000000-0000-4000-8000-' || lpad(${col}::text, 12, '0'))::uuid`;
const promptSql = (col: string) => `('e1000000-0000-4000-8000-' || lpad(${col}::text, 12, '0'))::uuid`;
const answerSql = (d: string, e: string, p: string) =>
  `('91000000-0000-4000-8000-' || lpad((${d} * 100 + ${e} * 10 + ${p})::text, 12, '0'))::uuid`;

export async function writeDriftData(db: Queryable): Promise<void> {
  const q = (sql: string) => db.query(sql);
  const { workspace, brand, analysis, group, days, prompts } = DRIFT;
  await q(`INSERT INTO plans (key, label, api_access, calls_per_minute) VALUES ('drift', 'Drift', true, 100) ON CONFLICT DO NOTHING`);
  await q(`INSERT INTO engines (key, name) VALUES ('chatgpt', 'ChatGPT'), ('gemini', 'Gemini') ON CONFLICT DO NOTHING`);
  await q(`INSERT INTO workspaces (id, name, slug, plan_key) VALUES ('${workspace}', 'Drift', 'drift', 'drift')`);
  await q(`INSERT INTO brands (id, workspace_id, name, domain) VALUES ('${brand}', '${workspace}', 'Acme', 'acme.test')`);
  await q(`INSERT INTO analyses (id, workspace_id, brand_id, slug, name, owned_domains, engines)
           VALUES ('${analysis}', '${workspace}', '${brand}', 'drift', 'Drift', '{acme.test}', '{chatgpt,gemini}')`);
  await q(`INSERT INTO prompt_groups (id, analysis_id, name) VALUES ('${group}', '${analysis}', 'Pricing')`);
  await q(`INSERT INTO prompts (id, analysis_id, group_id, text, language, created_at)
           SELECT ${promptSql('p')}, '${analysis}', CASE WHEN p % 2 = 0 THEN '${group}'::uuid END, 'Question ' || p, 'en',
                  '2026-01-01'::timestamptz + p * interval '1 minute'
             FROM generate_series(0, ${prompts - 1}) p`);
  await q(`INSERT INTO runs (id, analysis_id, state, started_at, collected_at, finished_at)
           SELECT ${runSql('d')}, '${analysis}', 'finished', '2026-02-10T06:00:00Z'::timestamptz + d * interval '1 day',
                  '2026-02-10T06:30:00Z'::timestamptz + d * interval '1 day', '2026-02-10T07:00:00Z'::timestamptz + d * interval '1 day'
             FROM generate_series(0, ${days - 1}) d`);
  await q(`INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed, recipe)
           SELECT ${runSql('d')}, e, 'done', ${prompts}, ${prompts}, ${prompts}, 0, 'r1'
             FROM generate_series(0, ${days - 1}) d, unnest(ARRAY['chatgpt', 'gemini']) e`);
  await q(`INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state, recipe)
           SELECT ${answerSql('d', 'e', 'p')}, '${analysis}', ${runSql('d')}, ${promptSql('p')}, (ARRAY['chatgpt', 'gemini'])[e + 1],
                  '2026-02-10T06:10:00Z'::timestamptz + d * interval '1 day' + (e * 10 + p) * interval '1 second', 'Answer',
                  CASE WHEN (d + p) % 7 = 0 THEN 'failed' ELSE 'extracted' END, 'r1'
             FROM generate_series(0, ${days - 1}) d, generate_series(0, 1) e, generate_series(0, ${prompts - 1}) p`);
  await q(`INSERT INTO mentions (answer_id, position, brand_name, is_tracked, sentiment)
           SELECT ${answerSql('d', 'e', 'p')}, 1, 'Acme', true, 0.5
             FROM generate_series(0, ${days - 1}) d, generate_series(0, 1) e, generate_series(0, ${prompts - 1}) p
            WHERE (d + e + p) % 3 <> 0 AND (d + p) % 7 <> 0`);
  await q(`INSERT INTO citations (answer_id, ordinal, url, domain)
           SELECT ${answerSql('d', 'e', 'p')}, 1, 'https://acme.test/' || p, CASE WHEN p % 2 = 0 THEN 'acme.test' ELSE 'g2.test' END
             FROM generate_series(0, ${days - 1}) d, generate_series(0, 1) e, generate_series(0, ${prompts - 1}) p
            WHERE (d + p) % 7 <> 0`);
  for (let d = 0; d < days; d += 1) await q(`SELECT finish_run_extraction('${DRIFT.run(d)}')`);
}

/**
 * Each month's extracted answers per engine, as the month rows serve them and as the raw answers give
 * them (every run here is finished; `exceptRun`: the raw answers of every run but that one).
 */
export async function servedAndRaw(db: Queryable, exceptRun?: string): Promise<{ served: unknown[]; raw: unknown[] }> {
  const served = (
    await db.query(
      `SELECT month::text, engine, extracted::int, mentioned::int FROM fig_month_engine
        WHERE analysis_id = '${DRIFT.analysis}' AND answers > 0 ORDER BY 1, 2`,
    )
  ).rows;
  const raw = (
    await db.query(
      `SELECT date_trunc('month', r.started_at AT TIME ZONE 'UTC')::date::text AS month, x.engine,
              count(*) FILTER (WHERE x.extraction_state = 'extracted')::int AS extracted,
              count(*) FILTER (WHERE x.extraction_state = 'extracted'
                                 AND EXISTS (SELECT 1 FROM mentions m WHERE m.answer_id = x.id AND m.is_tracked))::int AS mentioned
         FROM answers x JOIN runs r ON r.id = x.run_id
        WHERE x.analysis_id = '${DRIFT.analysis}' ${exceptRun ? `AND x.run_id <> '${exceptRun}'` : ''} GROUP BY 1, 2 ORDER BY 1, 2`,
    )
  ).rows;
  return { served, raw };
}

/** Removes one extracted answer of a run (its mentions and citations first), as a pipeline correcting a run does. */
export async function removeAnswer(db: Queryable, run: number): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM answers WHERE run_id = '${DRIFT.run(run)}' AND extraction_state = 'extracted' ORDER BY id LIMIT 1`,
  );
  const id = rows[0]?.id as string;
  await db.query(`DELETE FROM mentions WHERE answer_id = '${id}'`);
  await db.query(`DELETE FROM citations WHERE answer_id = '${id}'`);
  await db.query(`DELETE FROM answers WHERE id = '${id}'`);
  return id;
}
