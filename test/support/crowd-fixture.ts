import type { Queryable } from '../../shared/store/queryable.js';
import { seedFixtureWorkspace } from './fixture-workspace.js';

/**
 * An analysis whose answers name more indirect competitors than read 7 lists, in its own workspace:
 *
 *   crowd  tracked Crowdo; direct competitors Rival (named once) and Quiet (never named); one run,
 *          2025-04-01 06:00, chatgpt, two answers:
 *            c1: Crowdo@1, Rival@2, B01..B60 @3..@62 (60 indirect brands)
 *            c2: B01..B10 @1..@10
 *          so B01..B10 have 2 mentions, every other named brand 1, Quiet 0.
 */
export const CROWD_SECRET = 'geo_live_CrowdFixtureKey000000000000000000000000';
export const CROWD_ANALYSIS = 'crowd';
export const CROWD_INDIRECT = Array.from({ length: 60 }, (_, i) => `B${String(i + 1).padStart(2, '0')}`);

const u = (kind: number, n: number) => `c${kind.toString(16).padStart(7, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

export async function seedCrowdFixture(db: Queryable): Promise<void> {
  const q = (sql: string, params: unknown[] = []) => db.query(sql, params);
  const [analysis, rival, quiet, prompt, run] = [u(4, 1), u(5, 1), u(5, 2), u(7, 1), u(8, 1)];
  await seedFixtureWorkspace(db, {
    ids: { workspace: u(1, 1), user: u(2, 1), brand: u(3, 1), analysis, key: u(10, 1) },
    plan: { key: 'crowd_fixture', label: 'Crowd fixture', callsPerMinute: 100000 },
    workspace: { name: 'Crowd fixture', slug: 'crowd-fixture' },
    owner: { email: 'owner@crowd.test', name: 'Crowd owner' },
    brand: { name: 'Crowdo', domain: 'crowdo.com' },
    analysis: { slug: CROWD_ANALYSIS, name: 'Crowdo: many brands named' },
    secret: CROWD_SECRET,
    keyName: 'Crowd fixture',
  });
  await q(`INSERT INTO competitors (id, analysis_id, name, domain) VALUES ($1, $3, 'Rival', 'rival.com'), ($2, $3, 'Quiet', 'quiet.com')`, [rival, quiet, analysis]);
  await q(`INSERT INTO prompts (id, analysis_id, group_id, text, language, created_at) VALUES ($1, $2, NULL, 'Which tool?', 'en', '2025-01-01T01:00:00Z')`, [
    prompt,
    analysis,
  ]);
  await q(
    `INSERT INTO runs (id, analysis_id, state, started_at, collected_at, finished_at)
     VALUES ($1, $2, 'finished', '2025-04-01T06:00:00Z', '2025-04-01T06:40:00Z', '2025-04-01T07:00:00Z')`,
    [run, analysis],
  );
  await q(`INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed, recipe) VALUES ($1, 'chatgpt', 'done', 2, 2, 2, 0, 'crowd-v1')`, [run]);
  const answers: Array<Array<[string, string | null]>> = [
    [['Crowdo', null], ['Rival', rival], ...CROWD_INDIRECT.map((b): [string, null] => [b, null])],
    CROWD_INDIRECT.slice(0, 10).map((b): [string, null] => [b, null]),
  ];
  for (const [n, mentions] of answers.entries()) {
    const id = u(9, n + 1);
    await q(
      `INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state, recipe)
       VALUES ($1, $2, $3, $4, 'chatgpt', $5, $6, 'extracted', 'crowd-v1')`,
      [id, analysis, run, prompt, `2025-04-01T06:0${n + 1}:00Z`, `Answer ${n + 1}: ${mentions.map(([b]) => b).join(', ')}.`],
    );
    for (const [pos, [name, competitor]] of mentions.entries()) {
      await q(`INSERT INTO mentions (answer_id, position, brand_name, is_tracked, competitor_id) VALUES ($1, $2, $3, $4, $5)`, [
        id,
        pos + 1,
        name,
        name === 'Crowdo',
        competitor,
      ]);
    }
  }
  await q('SELECT finish_run_extraction($1)', [run]);
}
