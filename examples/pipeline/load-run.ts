/**
 * Loads one collection run into the measurement store by the rules of docs/data-contract.md, and by
 * nothing else: plain SQL on the contract's tables, the statements a collection pipeline in any language
 * would send. It is the document's runnable example; the deployment rehearsal runs it.
 *
 *   DATABASE_URL=postgres://OWNER@HOST/DB npx tsx examples/pipeline/load-run.ts --workspace acme --brand Acme [--analysis launch]
 *
 * DATABASE_URL is read as `npm run admin` reads it (scripts/admin-connection.ts), so the tunnel
 * URL of docs/operating.md works as written: `hostaddr` sends the connection into the tunnel while verify-full still
 * checks the certificate against the cluster's name (a plain `new pg.Client({ connectionString })`
 * ignores hostaddr and would dial the cluster's name, unreachable from outside the VPC).
 *
 * The workspace and brand exist already (the product, or `npm run admin`). The analysis and its prompts
 * are created the first time (section 1 of the contract); every run after that adds one run (sections 2-5).
 * Prints one JSON line: {"analysis": slug, "run": id}.
 *
 * The data are fixed so the figures can be checked by hand. Of 6 prompts x engines expected, 5 answers
 * arrive (Perplexity misses one); 4 are extracted, 1 fails extraction. The tracked brand is named in 3 of
 * the 4 extracted answers (visibility 0.75); 6 brand mentions in all, 3 of them the tracked brand's
 * (share of voice 0.5); its first positions 1, 2, 1 (average position 1.333333); sentiments 0.6 and 0.2
 * (average 0.4); 4 citations, 2 to owned domains (source share 0.5).
 *
 * The splits: the prompt naming the brand is branded (the pipeline says so), so with segments=branded its
 * one extracted answer names the brand (visibility 1) and the other prompts' 3 do twice (0.666667).
 * Of the 4 citations, 2 are owned, 1 a direct competitor's (initech.com) and 1 other (0.5, 0.25, 0.25).
 * Each engine's model is recorded, so a later run on another model is not compared like for like.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { adminClientConfig } from '../../scripts/admin-connection.js';

const { values } = parseArgs({
  options: { workspace: { type: 'string' }, brand: { type: 'string' }, analysis: { type: 'string', default: 'launch' } },
});
if (!values.workspace || !values.brand || !process.env.DATABASE_URL) {
  console.error('usage: DATABASE_URL=... npx tsx examples/pipeline/load-run.ts --workspace SLUG --brand NAME [--analysis SLUG]');
  process.exit(2);
}

const ENGINES = [
  { key: 'chatgpt', name: 'ChatGPT' },
  { key: 'perplexity', name: 'Perplexity' },
];
const MODELS: Record<string, string> = { chatgpt: 'gpt-5', perplexity: 'sonar-pro' };
// branded: whether the prompt names the tracked brand, as the pipeline classified it; null leaves it to the
// service's rule (docs/data-contract.md#branded-prompts), which here finds no brand name either.
const PROMPTS = [
  { text: 'Which project management tool is best for a small agency?', group: 'Buying', branded: null },
  { text: `How much does ${values.brand} cost per seat?`, group: 'Buying', branded: true },
  { text: 'What are alternatives to spreadsheets for planning work?', group: null, branded: false },
];

const db = new pg.Client(adminClientConfig(process.env.DATABASE_URL));
await db.connect();

async function one<R>(sql: string, params: unknown[]): Promise<R | undefined> {
  return (await db.query(sql, params)).rows[0] as R | undefined;
}

try {
  // ---- 1. Configuration (once per analysis, before its first run) -------------------------------------
  // Engines are reference data shared by every analysis: insert the ones you collect from, never rename a key.
  for (const e of ENGINES) await db.query('INSERT INTO engines (key, name) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [e.key, e.name]);

  const ws = await one<{ id: string }>('SELECT id FROM workspaces WHERE slug = $1', [values.workspace]);
  const brand =
    ws &&
    (await one<{ id: string; domain: string | null }>('SELECT id, domain FROM brands WHERE workspace_id = $1 AND name = $2', [
      ws.id,
      values.brand,
    ]));
  if (!ws || !brand) throw new Error(`workspace ${values.workspace} with brand ${values.brand} must exist first (npm run admin)`);
  const home = brand.domain ?? 'acme.com';

  let analysis = await one<{ id: string }>('SELECT id FROM analyses WHERE workspace_id = $1 AND slug = $2', [ws.id, values.analysis]);
  if (!analysis) {
    analysis = { id: randomUUID() };
    // owned_domains: host names as citations.domain will carry them (lower-case, no scheme, no "www.").
    await db.query(
      `INSERT INTO analyses (id, workspace_id, brand_id, slug, name, language, country, owned_domains, engines, brand_aliases)
       VALUES ($1, $2, $3, $4, $5, 'en', 'US', $6, $7, $8)`,
      [
        analysis.id,
        ws.id,
        brand.id,
        values.analysis,
        `${values.brand} launch`,
        [home, `blog.${home}`],
        ENGINES.map((e) => e.key),
        // Other names of the tracked brand the branded rule looks for in prompts left unclassified.
        [`${values.brand} PM`],
      ],
    );
    // A direct competitor: mentions of it carry its id; brands the answers name besides are indirect ones.
    // Its domains make citations of them the "competitor" category of the sources read.
    await db.query('INSERT INTO competitors (id, analysis_id, name, domain, domains) VALUES ($1, $2, $3, $4, $5)', [
      randomUUID(),
      analysis.id,
      'Initech',
      'initech.com',
      ['initech.io'],
    ]);
    const group = randomUUID();
    await db.query('INSERT INTO prompt_groups (id, analysis_id, name) VALUES ($1, $2, $3)', [group, analysis.id, 'Buying']);
    for (const p of PROMPTS) {
      await db.query(
        'INSERT INTO prompts (id, analysis_id, group_id, text, language, created_at, branded) VALUES ($1, $2, $3, $4, $5, now(), $6)',
        [randomUUID(), analysis.id, p.group ? group : null, p.text, 'en', p.branded],
      );
    }
  }
  // The prompts in the order of PROMPTS (the answers below follow it), found by their text.
  const byText = new Map(
    (await db.query<{ id: string; text: string }>('SELECT id, text FROM prompts WHERE analysis_id = $1', [analysis.id])).rows.map((r) => [
      r.text,
      r.id,
    ]),
  );
  const prompts = PROMPTS.map((p) => byText.get(p.text));
  const competitor = await one<{ id: string }>('SELECT id FROM competitors WHERE analysis_id = $1 AND name = $2', [analysis.id, 'Initech']);
  // Section 1 created both with the analysis; an analysis without them was not made by this script.
  const [p1, p2, p3] = prompts;
  if (p1 === undefined || p2 === undefined || p3 === undefined || !competitor) {
    throw new Error(
      `analysis ${values.analysis} must have its ${PROMPTS.length} prompts and the competitor Initech (section 1 creates them)`,
    );
  }

  // ---- 2. The run starts ------------------------------------------------------------------------------
  // started_at decides the UTC day the run belongs to; it must lie in [2000-01-01, 2100-01-01).
  const run = randomUUID();
  const started = new Date(Date.now() - 2 * 3_600_000);
  const at = (minutes: number) => new Date(started.getTime() + minutes * 60_000);
  await db.query("INSERT INTO runs (id, analysis_id, state, started_at) VALUES ($1, $2, 'collecting', $3)", [run, analysis.id, started]);
  for (const e of ENGINES) {
    // model: what the engine answered with in this run; null when the pipeline cannot tell.
    await db.query(
      "INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed, model) VALUES ($1, $2, 'collecting', $3, 0, 0, 0, $4)",
      [run, e.key, prompts.length, MODELS[e.key] ?? null],
    );
  }

  // ---- 3. Collection: one answer per prompt and engine, as it arrives -----------------------------------
  interface Answer {
    id: string;
    prompt: string;
    engine: string;
    text: string;
    mentions: Array<{ brand: string; tracked?: boolean; competitor?: boolean; sentiment?: number }>;
    citations: string[];
    extraction: 'extracted' | 'failed';
  }
  const acme = values.brand;
  const answers: Answer[] = [
    {
      id: randomUUID(),
      prompt: p1,
      engine: 'chatgpt',
      text: `${acme} and Initech both fit small agencies.`,
      extraction: 'extracted',
      mentions: [
        { brand: acme, tracked: true, sentiment: 0.6 },
        { brand: 'Initech', competitor: true },
      ],
      citations: [`https://${home}/pricing`, 'https://initech.com/'],
    },
    {
      id: randomUUID(),
      prompt: p2,
      engine: 'chatgpt',
      text: `Initech is cheaper; ${acme} has more features.`,
      extraction: 'extracted',
      mentions: [
        { brand: 'Initech', competitor: true },
        { brand: acme, tracked: true, sentiment: 0.2 },
      ],
      citations: [`https://blog.${home}/seats`],
    },
    {
      id: randomUUID(),
      prompt: p3,
      engine: 'chatgpt',
      text: 'Kanban boards or Hooli Sheets work well.',
      extraction: 'extracted',
      mentions: [{ brand: 'Hooli Sheets' }],
      citations: ['https://example.org/kanban'],
    },
    {
      id: randomUUID(),
      prompt: p1,
      engine: 'perplexity',
      text: `${acme} is a common choice.`,
      extraction: 'extracted',
      mentions: [{ brand: acme, tracked: true }],
      citations: [],
    },
    {
      id: randomUUID(),
      prompt: p2,
      engine: 'perplexity',
      text: '(unreadable answer)',
      extraction: 'failed',
      mentions: [],
      citations: [],
    },
  ];
  for (const [i, a] of answers.entries()) {
    // captured_at decides the answer's day in the answers list; same range rule as started_at.
    await db.query(
      "INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state) VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending')",
      [a.id, analysis.id, run, a.prompt, a.engine, at(5 + i), a.text],
    );
  }
  // Counts per engine: collected answers, and the prompts that failed to collect.
  await db.query("UPDATE run_engines SET collected = 3, failed = 0 WHERE run_id = $1 AND engine = 'chatgpt'", [run]);
  await db.query("UPDATE run_engines SET collected = 2, failed = 1 WHERE run_id = $1 AND engine = 'perplexity'", [run]);

  // ---- 4. Collection ends: from now on the run counts (volumes) and figures say extraction is late -------
  await db.query("UPDATE runs SET state = 'extracting', collected_at = $2 WHERE id = $1", [run, at(30)]);
  await db.query("UPDATE run_engines SET state = 'extracting' WHERE run_id = $1", [run]);

  // ---- 5. Extraction, then finish: one transaction, ending with finish_run_extraction -------------------
  await db.query('BEGIN');
  for (const a of answers) {
    for (const [n, m] of a.mentions.entries()) {
      // position: order of appearance in the answer (1-based), never a character offset.
      await db.query(
        'INSERT INTO mentions (answer_id, position, brand_name, is_tracked, competitor_id, sentiment) VALUES ($1, $2, $3, $4, $5, $6)',
        [a.id, n + 1, m.brand, m.tracked === true, m.competitor ? competitor.id : null, m.sentiment ?? null],
      );
    }
    for (const [n, url] of a.citations.entries()) {
      const domain = new URL(url).hostname.toLowerCase().replace(/^www\./, '');
      await db.query('INSERT INTO citations (answer_id, ordinal, url, domain) VALUES ($1, $2, $3, $4)', [a.id, n + 1, url, domain]);
    }
    await db.query("UPDATE answers SET extraction_state = $2, recipe = 'v1' WHERE id = $1", [a.id, a.extraction]);
  }
  await db.query("UPDATE run_engines SET state = 'done', extracted = 3, recipe = 'v1' WHERE run_id = $1 AND engine = 'chatgpt'", [run]);
  await db.query("UPDATE run_engines SET state = 'done', extracted = 1, recipe = 'v1' WHERE run_id = $1 AND engine = 'perplexity'", [run]);
  await db.query("UPDATE runs SET state = 'finished', finished_at = $2 WHERE id = $1", [run, at(60)]);
  // Writes the run's aggregates (the figure reads read nothing else for a finished run). Same transaction:
  // no reader ever sees the run finished without its figures.
  await db.query('SELECT finish_run_extraction($1)', [run]);
  await db.query('COMMIT');

  console.log(JSON.stringify({ analysis: values.analysis, run }));
} catch (err) {
  await db.query('ROLLBACK').catch(() => undefined);
  throw err;
} finally {
  await db.end();
}
