import { fingerprint, visiblePrefix } from '../../shared/keys.js';
import type { Queryable } from '../../shared/store/queryable.js';

/**
 * Hand-built dataset for the figure reads (4-10), in its own workspace, plan and key, so every figure
 * can be computed by hand in test/integration/figures-*.test.ts. Runs (UTC):
 *
 *   R0 2025-02-20 06:00   a01 chatgpt P1: Rival@1 (0.2), Nimbus@2 (-), Fixo@3 (1.0); cites fixo.com
 *                         a02 perplexity P1: Fixo@1 (0.0); no citation
 *   R1 2025-03-01 06:00   6 answers (P1-P3 × chatgpt, perplexity): Rival@1 (0.5); each cites g2.com
 *   R2 2025-03-08 06:00   6 answers (P1-P3 × both): Fixo@1 (0.3); chatgpt cite rival.com, perplexity fixo.com
 *   R3 2025-03-10 06:00   a31 chatgpt P1: Fixo@1 (0.2); cites fixo.com, g2.com
 *                         a32 chatgpt P2: no brand; cites g2.com
 *                         a33 perplexity P1: Fixo@1 (-0.4), Nimbus@2 (-); cites fixo.com
 *                         a34 perplexity P2: extraction failed
 *                         P3 failed to collect on both engines
 *   R4 2025-03-10 14:00   a41 chatgpt P1: Fixo@1 (0.5), Rival@2 (0.1)
 *                         a42 chatgpt P2: Rival@1 (-), Fixo@2 (-)
 *                         a43 perplexity P1: Rival@1 (-)
 *                         a44 perplexity P3: no brand          no citation in R4; P3/chatgpt and P2/perplexity not collected
 *
 * Tracked brand Fixo, owned domain fixo.com; direct competitors Rival and Quiet (never named); Nimbus is
 * indirect. Groups: Alpha (P1, P2), Empty (no prompt); P3 in no group.
 * A second analysis, fig-noowned, declares no owned domain: one run, one answer naming Fixo, citing g2.com.
 */

export const FIG_SECRET = 'geo_live_FiguresFixtureKey0000000000000000000000';
export const FIG_WORKSPACE = 'figures-fixture';
export const FIG_ANALYSIS = 'fig-main';
export const FIG_NOOWNED = 'fig-noowned';

const u = (kind: number, n: number) => `f${kind.toString(16).padStart(7, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

export const FIG_IDS = {
  workspace: u(1, 1),
  user: u(2, 1),
  brand: u(3, 1),
  analysis: u(4, 1),
  noowned: u(4, 2),
  rival: u(5, 1),
  quiet: u(5, 2),
  alpha: u(6, 1),
  empty: u(6, 2),
  other: u(6, 3),
  p1: u(7, 1),
  p2: u(7, 2),
  p3: u(7, 3),
  pb: u(7, 4),
  runs: [u(8, 0), u(8, 1), u(8, 2), u(8, 3), u(8, 4)] as const,
  runB: u(8, 10),
};

type Mention = [brand: 'Fixo' | 'Rival' | 'Nimbus', sentiment: number | null];
interface AnswerSpec {
  run: number;
  engine: 'chatgpt' | 'perplexity';
  prompt: 'p1' | 'p2' | 'p3';
  mentions: Mention[];
  cites: string[];
  failed?: boolean;
}

const both = (run: number, mentions: (engine: string) => Mention[], cites: (engine: string) => string[]): AnswerSpec[] =>
  (['p1', 'p2', 'p3'] as const).flatMap((prompt) =>
    (['chatgpt', 'perplexity'] as const).map((engine) => ({ run, engine, prompt, mentions: mentions(engine), cites: cites(engine) })),
  );

const ANSWERS: AnswerSpec[] = [
  { run: 0, engine: 'chatgpt', prompt: 'p1', mentions: [['Rival', 0.2], ['Nimbus', null], ['Fixo', 1.0]], cites: ['fixo.com'] },
  { run: 0, engine: 'perplexity', prompt: 'p1', mentions: [['Fixo', 0.0]], cites: [] },
  ...both(1, () => [['Rival', 0.5]], () => ['g2.com']),
  ...both(2, () => [['Fixo', 0.3]], (e) => [e === 'chatgpt' ? 'rival.com' : 'fixo.com']),
  { run: 3, engine: 'chatgpt', prompt: 'p1', mentions: [['Fixo', 0.2]], cites: ['fixo.com', 'g2.com'] },
  { run: 3, engine: 'chatgpt', prompt: 'p2', mentions: [], cites: ['g2.com'] },
  { run: 3, engine: 'perplexity', prompt: 'p1', mentions: [['Fixo', -0.4], ['Nimbus', null]], cites: ['fixo.com'] },
  { run: 3, engine: 'perplexity', prompt: 'p2', mentions: [], cites: [], failed: true },
  { run: 4, engine: 'chatgpt', prompt: 'p1', mentions: [['Fixo', 0.5], ['Rival', 0.1]], cites: [] },
  { run: 4, engine: 'chatgpt', prompt: 'p2', mentions: [['Rival', null], ['Fixo', null]], cites: [] },
  { run: 4, engine: 'perplexity', prompt: 'p1', mentions: [['Rival', null]], cites: [] },
  { run: 4, engine: 'perplexity', prompt: 'p3', mentions: [], cites: [] },
];

const RUN_STARTS = ['2025-02-20T06:00:00Z', '2025-03-01T06:00:00Z', '2025-03-08T06:00:00Z', '2025-03-10T06:00:00Z', '2025-03-10T14:00:00Z'];
const RECIPES = ['fx-v1', 'fx-v1', 'fx-v2', 'fx-v2', 'fx-v2'];

export async function seedFiguresFixture(db: Queryable): Promise<void> {
  const q = (sql: string, params: unknown[] = []) => db.query(sql, params);
  const I = FIG_IDS;
  await q(`INSERT INTO plans (key, label, api_access, calls_per_minute) VALUES ('figures_fixture', 'Figures fixture', true, 100000)`);
  await q(`INSERT INTO workspaces (id, name, slug, plan_key, created_at) VALUES ($1, 'Figures fixture', $2, 'figures_fixture', '2025-01-01T00:00:00Z')`, [
    I.workspace,
    FIG_WORKSPACE,
  ]);
  await q(`INSERT INTO users (id, email, name) VALUES ($1, 'owner@figures.test', 'Fiona Figures')`, [I.user]);
  await q(`INSERT INTO members (workspace_id, user_id, role, joined_at) VALUES ($1, $2, 'owner', '2025-01-01T00:00:00Z')`, [I.workspace, I.user]);
  await q(`INSERT INTO brands (id, workspace_id, name, domain) VALUES ($1, $2, 'Fixo', 'fixo.com')`, [I.brand, I.workspace]);
  await q(
    `INSERT INTO analyses (id, workspace_id, brand_id, slug, name, owned_domains, engines, created_at) VALUES
       ($1, $3, $4, $5, 'Fixo: hand-built', '{fixo.com}', '{chatgpt,perplexity}', '2025-01-01T00:00:00Z'),
       ($2, $3, $4, $6, 'Fixo: no owned domain', '{}', '{chatgpt}', '2025-01-01T00:00:00Z')`,
    [I.analysis, I.noowned, I.workspace, I.brand, FIG_ANALYSIS, FIG_NOOWNED],
  );
  await q(`INSERT INTO competitors (id, analysis_id, name, domain) VALUES ($1, $3, 'Rival', 'rival.com'), ($2, $3, 'Quiet', 'quiet.com')`, [
    I.rival,
    I.quiet,
    I.analysis,
  ]);
  await q(
    `INSERT INTO prompt_groups (id, analysis_id, name, created_at) VALUES
       ($1, $4, 'Alpha', '2025-01-01T00:00:00Z'), ($2, $4, 'Empty', '2025-01-01T00:00:00Z'), ($3, $5, 'Other', '2025-01-01T00:00:00Z')`,
    [I.alpha, I.empty, I.other, I.analysis, I.noowned],
  );
  await q(
    `INSERT INTO prompts (id, analysis_id, group_id, text, language, created_at) VALUES
       ($1, $5, $6, 'Best tool for fixing things?', 'en', '2025-01-01T01:00:00Z'),
       ($2, $5, $6, 'Fixo or Rival?', 'en', '2025-01-01T02:00:00Z'),
       ($3, $5, NULL, 'Is Fixo any good?', 'en', '2025-01-01T03:00:00Z'),
       ($4, $7, $8, 'Who fixes things?', 'en', '2025-01-01T01:00:00Z')`,
    [I.p1, I.p2, I.p3, I.pb, I.analysis, I.alpha, I.noowned, I.other],
  );
  for (const [i, start] of RUN_STARTS.entries()) {
    const t = Date.parse(start);
    await q(`INSERT INTO runs (id, analysis_id, state, started_at, collected_at, finished_at) VALUES ($1, $2, 'finished', $3, $4, $5)`, [
      I.runs[i],
      I.analysis,
      start,
      new Date(t + 40 * 60_000).toISOString(),
      new Date(t + 60 * 60_000).toISOString(),
    ]);
    for (const engine of ['chatgpt', 'perplexity']) {
      const mine = ANSWERS.filter((a) => a.run === i && a.engine === engine);
      await q(
        `INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed, recipe) VALUES ($1, $2, 'done', 3, $3, $4, $5, $6)`,
        [I.runs[i], engine, mine.length, mine.filter((a) => !a.failed).length, 3 - mine.length, RECIPES[i]],
      );
    }
  }
  for (const [n, a] of ANSWERS.entries()) {
    const id = u(9, n + 1);
    await q(
      `INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state, recipe)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        id,
        I.analysis,
        I.runs[a.run],
        I[a.prompt],
        a.engine,
        new Date(Date.parse(RUN_STARTS[a.run] as string) + (n + 1) * 60_000).toISOString(),
        `Answer ${n + 1}: ${a.mentions.map(([b]) => b).join(', ') || 'no brand'}.`,
        a.failed ? 'failed' : 'extracted',
        a.failed ? null : RECIPES[a.run],
      ],
    );
    for (const [pos, [brand, sentiment]] of a.mentions.entries()) {
      await q(`INSERT INTO mentions (answer_id, position, brand_name, is_tracked, competitor_id, sentiment) VALUES ($1, $2, $3, $4, $5, $6)`, [
        id,
        pos + 1,
        brand,
        brand === 'Fixo',
        brand === 'Rival' ? I.rival : null,
        sentiment,
      ]);
    }
    for (const [k, domain] of a.cites.entries()) {
      await q(`INSERT INTO citations (answer_id, ordinal, url, domain) VALUES ($1, $2, $3, $4)`, [id, k + 1, `https://${domain}/page-${n}`, domain]);
    }
  }
  // The analysis without owned domains: one run, one answer naming Fixo, citing g2.com.
  await q(
    `INSERT INTO runs (id, analysis_id, state, started_at, collected_at, finished_at)
     VALUES ($1, $2, 'finished', '2025-03-10T06:00:00Z', '2025-03-10T06:40:00Z', '2025-03-10T07:00:00Z')`,
    [I.runB, I.noowned],
  );
  await q(`INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed, recipe) VALUES ($1, 'chatgpt', 'done', 1, 1, 1, 0, 'fx-v2')`, [I.runB]);
  const ab = u(9, 100);
  await q(
    `INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state, recipe)
     VALUES ($1, $2, $3, $4, 'chatgpt', '2025-03-10T06:05:00Z', 'Fixo fixes things.', 'extracted', 'fx-v2')`,
    [ab, I.noowned, I.runB, I.pb],
  );
  await q(`INSERT INTO mentions (answer_id, position, brand_name, is_tracked, sentiment) VALUES ($1, 1, 'Fixo', true, 0.4)`, [ab]);
  await q(`INSERT INTO citations (answer_id, ordinal, url, domain) VALUES ($1, 1, 'https://g2.com/fixo', 'g2.com')`, [ab]);

  for (const run of [...I.runs, I.runB]) await q('SELECT finish_run_extraction($1)', [run]);
  await q(
    `INSERT INTO api_keys (id, workspace_id, name, prefix, fingerprint, scope, created_by, created_at, expires_at)
     VALUES ($1, $2, 'Figures fixture', $3, $4, 'workspace', $5, '2025-01-01T00:00:00Z', '2099-01-01T00:00:00Z')`,
    [u(10, 1), I.workspace, visiblePrefix(FIG_SECRET), fingerprint(FIG_SECRET), I.user],
  );
}
