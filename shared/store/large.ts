import { fingerprint, visiblePrefix } from '../keys.js';
import type { Queryable } from './queryable.js';

/**
 * A large, deterministic dataset for load figures, generated set-based inside PostgreSQL
 * (generate_series + hash-based pseudo-random values), never row by row from JS.
 *
 * One analysis with `years` × 365 daily runs × 200 prompts × 6 engines (≈ 438k answers a year) with their
 * mentions and citations, in its own workspace, plan and key. Aggregates are then written by
 * finish_run_extraction, once per run, exactly as the collection pipeline does.
 */

export interface LargeOptions {
  years: 1 | 3;
  /** Last day of the history (UTC). Fixed by default so the dataset never depends on today. */
  endDate?: string;
}

export interface LargeManifest {
  secret: string;
  workspaceSlug: string;
  analysisSlug: string;
  analysisId: string;
  groupIds: string[];
  endDate: string;
  answers: number;
}

export const LARGE_PROMPTS = 200;
export const LARGE_ENGINES = ['chatgpt', 'perplexity', 'gemini', 'ai_overviews', 'claude', 'copilot'] as const;
const GROUPS = 10;
const PROMPTS_PER_GROUP = 18; // 180 grouped, 20 in no group

/** Valid RFC 4122 v4-shaped ids: kind (8 hex) - years - 4000 - 8000 - n. */
const id = (kind: string, years: number, n: number | string) =>
  typeof n === 'number'
    ? `${kind}-${String(years).padStart(4, '0')}-4000-8000-${n.toString(16).padStart(12, '0')}`
    : `('${kind}-${String(years).padStart(4, '0')}-4000-8000-' || lpad(to_hex(${n}), 12, '0'))::uuid`;

/** Uniform [0, 1) from a 64-bit hash of (n, salt). */
const u = (n: string, salt: number) => `((hashint8extended(${n}, ${salt}) & 2147483647)::float8 / 2147483648.0)`;

export function largeSecret(years: number): string {
  return `geo_live_LargeBench${years}y`.padEnd(49, 'Q');
}

export async function seedLarge(db: Queryable, opts: LargeOptions): Promise<LargeManifest> {
  const years = opts.years;
  const endDate = opts.endDate ?? '2025-12-31';
  const days = 365 * years;
  const secret = largeSecret(years);
  const ws = id('b0000001', years, 1);
  const user = id('b0000002', years, 1);
  const brand = id('b0000003', years, 1);
  const analysis = id('b0000004', years, 1);
  const key = id('b0000005', years, 1);
  const slug = `large-${years}y`;
  const nE = LARGE_ENGINES.length;
  const q = (sql: string, params?: unknown[]) => db.query(sql, params);

  await q(`INSERT INTO plans (key, label, api_access, calls_per_minute) VALUES ('bench', 'Bench', true, 1000000) ON CONFLICT DO NOTHING`);
  await q(
    `INSERT INTO engines (key, name) VALUES ('chatgpt', 'ChatGPT'), ('perplexity', 'Perplexity'), ('gemini', 'Gemini'),
       ('ai_overviews', 'Google AI Overviews'), ('claude', 'Claude'), ('copilot', 'Microsoft Copilot') ON CONFLICT DO NOTHING`,
  );
  const start = `('${endDate}'::date - ${days - 1})`;
  await q(`INSERT INTO workspaces (id, name, slug, plan_key, created_at) VALUES ('${ws}', 'Large ${years}y', 'large-${years}y', 'bench', ${start} - 30)`);
  await q(`INSERT INTO users (id, email, name) VALUES ('${user}', 'owner@large-${years}y.test', 'Large Owner')`);
  await q(`INSERT INTO members (workspace_id, user_id, role, joined_at) VALUES ('${ws}', '${user}', 'owner', ${start} - 30)`);
  await q(`INSERT INTO brands (id, workspace_id, name, domain) VALUES ('${brand}', '${ws}', 'Largo', 'largo.com')`);
  await q(
    `INSERT INTO analyses (id, workspace_id, brand_id, slug, name, owned_domains, engines, created_at)
     VALUES ('${analysis}', '${ws}', '${brand}', '${slug}', 'Largo: ${years} year(s) of daily runs', '{largo.com,docs.largo.com}',
             '{${LARGE_ENGINES.join(',')}}', ${start} - 20)`,
  );
  await q(
    `INSERT INTO api_keys (id, workspace_id, name, prefix, fingerprint, scope, created_by, created_at, expires_at)
     VALUES ('${key}', '${ws}', 'Bench key', $1, $2, 'workspace', '${user}', now() - interval '1 day', now() + interval '10 years')`,
    [visiblePrefix(secret), fingerprint(secret)],
  );
  // Brands: 0 tracked, 1-5 direct competitors, 6-9 indirect.
  await q(`DROP TABLE IF EXISTS large_brands`);
  await q(`CREATE TEMP TABLE large_brands (b int, name text, rate float8, cid uuid)`);
  await q(
    `INSERT INTO large_brands VALUES (0, 'Largo', 0.35, NULL),
       (1, 'Rival One', 0.45, '${id('b0000006', years, 1)}'), (2, 'Rival Two', 0.35, '${id('b0000006', years, 2)}'),
       (3, 'Rival Three', 0.25, '${id('b0000006', years, 3)}'), (4, 'Rival Four', 0.18, '${id('b0000006', years, 4)}'),
       (5, 'Rival Five', 0.10, '${id('b0000006', years, 5)}'),
       (6, 'Other Alpha', 0.12, NULL), (7, 'Other Beta', 0.08, NULL), (8, 'Other Gamma', 0.05, NULL), (9, 'Other Delta', 0.03, NULL)`,
  );
  await q(`INSERT INTO competitors (id, analysis_id, name, domain)
           SELECT cid, '${analysis}', name, lower(replace(name, ' ', '')) || '.com' FROM large_brands WHERE cid IS NOT NULL`);
  await q(`INSERT INTO prompt_groups (id, analysis_id, name, created_at)
           SELECT ${id('b0000007', years, 'g')}, '${analysis}', 'Group ' || lpad(g::text, 2, '0'), ${start} - 15
             FROM generate_series(1, ${GROUPS}) g`);
  await q(`INSERT INTO prompts (id, analysis_id, group_id, text, language, created_at)
           SELECT ${id('b0000008', years, 'p')}, '${analysis}',
                  CASE WHEN p < ${GROUPS * PROMPTS_PER_GROUP} THEN ${id('b0000007', years, `(p / ${PROMPTS_PER_GROUP} + 1)`)} END,
                  'Synthetic question number ' || p, 'en', ${start} - 15 + p * interval '1 second'
             FROM generate_series(0, ${LARGE_PROMPTS - 1}) p`);
  await q(`INSERT INTO runs (id, analysis_id, state, started_at, collected_at, finished_at)
           SELECT ${id('b0000009', years, 'd')}, '${analysis}', 'finished',
                  (${start} + d) + interval '6 hours', (${start} + d) + interval '6 hours 40 minutes', (${start} + d) + interval '7 hours'
             FROM generate_series(0, ${days - 1}) d`);
  await q(`INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed, recipe)
           SELECT ${id('b0000009', years, 'd')}, (ARRAY['${LARGE_ENGINES.join("','")}'])[e + 1], 'done', ${LARGE_PROMPTS}, ${LARGE_PROMPTS}, ${LARGE_PROMPTS}, 0,
                  CASE WHEN d < ${days / 2} THEN 'extract-v2' ELSE 'extract-v3' END
             FROM generate_series(0, ${days - 1}) d, generate_series(0, ${nE - 1}) e`);
  // n numbers every answer: (day * engines + engine) * prompts + prompt.
  await q(`DROP TABLE IF EXISTS large_answers`);
  await q(`CREATE TEMP TABLE large_answers AS
           SELECT n, d, e, p, ${id('b000000a', years, 'n')} AS id FROM (
             SELECT (d::bigint * ${nE} + e) * ${LARGE_PROMPTS} + p AS n, d, e, p
               FROM generate_series(0, ${days - 1}) d, generate_series(0, ${nE - 1}) e, generate_series(0, ${LARGE_PROMPTS - 1}) p) x`);
  await q(`INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state, recipe)
           SELECT a.id, '${analysis}', ${id('b0000009', years, 'a.d')}, ${id('b0000008', years, 'a.p')},
                  (ARRAY['${LARGE_ENGINES.join("','")}'])[a.e + 1],
                  (${start} + a.d) + interval '6 hours' + a.e * interval '5 minutes' + a.p * interval '1 second',
                  'Synthetic answer ' || a.n, 'extracted', CASE WHEN a.d < ${days / 2} THEN 'extract-v2' ELSE 'extract-v3' END
             FROM large_answers a`);
  // Tracked-brand probability moves with the engine, the prompt and a slow seasonal wave.
  await q(`INSERT INTO mentions (answer_id, position, brand_name, is_tracked, competitor_id, sentiment)
           SELECT id, row_number() OVER (PARTITION BY id ORDER BY score, b)::int, name, b = 0, cid, sentiment
             FROM (
               SELECT a.id, b.b, b.name, b.cid, ${u('a.n * 16 + b.b', 7)} AS score,
                      CASE WHEN ${u('a.n * 16 + b.b', 11)} < 0.1 THEN NULL
                           ELSE round(greatest(-1, least(1, ${u('a.n * 16 + b.b', 13)} * 1.6 - 0.7 + CASE WHEN b.b = 0 THEN 0.3 ELSE 0 END))::numeric, 3) END AS sentiment
                 FROM large_answers a CROSS JOIN large_brands b
                WHERE ${u('a.n * 16 + b.b', 3)} < b.rate + CASE WHEN b.b = 0 THEN 0.05 * a.e + 0.02 * (a.p % 7) + 0.1 * sin(a.d / 29.0) ELSE 0 END
             ) x`);
  await q(`INSERT INTO citations (answer_id, ordinal, url, domain)
           SELECT a.id, k, 'https://' || dom || '/page-' || a.n, dom
             FROM large_answers a
             CROSS JOIN generate_series(1, 4) k
             CROSS JOIN LATERAL (SELECT (ARRAY['largo.com','docs.largo.com','g2.com','capterra.com','reddit.com','en.wikipedia.org','forbes.com',
                 'techcrunch.com','zapier.com','youtube.com','medium.com','trustradius.com','gartner.com','producthunt.com','stackoverflow.com',
                 'rivalone.com','rivaltwo.com','rivalthree.com','news.ycombinator.com','theverge.com','wired.com','pcmag.com','cnet.com',
                 'getapp.com','softwareadvice.com','quora.com','linkedin.com','github.com','hubspot.com','nytimes.com'])[1 + floor(${u('a.n * 8 + k', 19)} * 30)::int] AS dom) d
            WHERE k <= floor(${u('a.n', 17)} * 5)`);
  await q(`DROP TABLE large_answers`);
  await q(`DROP TABLE large_brands`);
  await q('ANALYZE');
  await q(`SELECT count(finish_run_extraction(id)) FROM (SELECT id FROM runs WHERE analysis_id = '${analysis}' ORDER BY started_at) r`);
  // Month rows were updated once per run; reclaim the dead versions now rather than wait for autovacuum.
  await q('VACUUM ANALYZE');
  return largeManifest(opts);
}

/** What seedLarge writes, known without a database (ids, key and slugs are deterministic). */
export function largeManifest(opts: LargeOptions): LargeManifest {
  const years = opts.years;
  return {
    secret: largeSecret(years),
    workspaceSlug: `large-${years}y`,
    analysisSlug: `large-${years}y`,
    analysisId: id('b0000004', years, 1),
    groupIds: Array.from({ length: GROUPS }, (_, g) => id('b0000007', years, g + 1)),
    endDate: opts.endDate ?? '2025-12-31',
    answers: 365 * years * LARGE_ENGINES.length * LARGE_PROMPTS,
  };
}
