import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { migrate, SQL_DIR } from '#shared/admin/migrate.js';
import { fingerprint, visiblePrefix } from '#shared/keys.js';
import type { Queryable } from '#shared/store/queryable.js';
import { benchApi, serverDatabase, stats, table, withUser } from './harness.js';

/**
 * How each read grows with the size of what surrounds it, on the PostgreSQL server, through
 * the local HTTP adapter:
 *  - workspaces of 1, 1,000 and 10,000 analyses (20 brands each), the same analysis `target` in each
 *    (30 daily runs, 20 prompts, 3 engines), read with keys of every scope: workspace, brand (the target's
 *    brand, 1/20 of the workspace), analysis (the target), and a workspace key whose creator is limited to
 *    2 of the 20 brands;
 *  - a workspace of 1 analysis with 10,000 members and 100,000 keys, beside the one of 1 analysis;
 *  - analyses of 100, 200 and 500 prompts (the most an analysis may hold: docs/data-contract.md "Bounds"),
 *    each prompt in one group: the catalogue over REST (every prompt) and MCP (a page of 100, first and
 *    last), and the group's prompts (a page of 50, first and last).
 * Every case runs in each round, rounds alternate their order, and each figure is the median of all its
 * calls, so a drift of the machine lands on every column alike and the ratios hold.
 */

const ROUNDS = 6;
const CALLS_PER_ROUND = 10;
const SIZES = [1, 1000, 10000] as const;
const BRANDS = 20;
const CATALOGUE_SIZES = [100, 200, 500] as const;
const END = '2026-11-20';
const DB_NAME = 'geo_bench_scale_catalogue';

/** Deterministic ids: kind (8 hex) - workspace - 4000 - 8000 - n. */
const id = (kind: string, ws: number, n: number) => `${kind}-${String(ws).padStart(4, '0')}-4000-8000-${n.toString(16).padStart(12, '0')}`;
const idSql = (kind: string, ws: number, n: string) =>
  `('${kind}-${String(ws).padStart(4, '0')}-4000-8000-' || lpad(to_hex(${n}), 12, '0'))::uuid`;
const u = (n: string, salt: number) => `((hashint8extended(${n}, ${salt}) & 2147483647)::float8 / 2147483648.0)`;

type Scope = 'workspace' | 'brand' | 'analysis' | 'restricted';
const SCOPES: readonly Scope[] = ['workspace', 'brand', 'analysis', 'restricted'];
const secret = (ws: number, scope: Scope) => `geo_live_Scale${ws}${scope}`.padEnd(49, 'Q');

/** Workspace numbers: 1-3 the sizes above, 4 the crowded one, 5 the one of the catalogue sizes. */
const CROWD = 4;
const GROUPS = 5;

async function fillWorkspace(db: Queryable, ws: number, analyses: number): Promise<void> {
  const q = (sql: string, params?: unknown[]) => db.query(sql, params);
  const wsId = id('c0000001', ws, 1);
  const owner = id('c0000002', ws, 0);
  const limited = id('c0000002', ws, 1);
  await q(
    `INSERT INTO workspaces (id, name, slug, plan_key, created_at) VALUES ('${wsId}', 'Scale ${ws}', 'scale-${ws}', 'bench', '2025-01-01')`,
  );
  await q(
    `INSERT INTO users (id, email, name) VALUES ('${owner}', 'owner@scale-${ws}.test', 'Owner'), ('${limited}', 'limited@scale-${ws}.test', 'Limited')`,
  );
  await q(`INSERT INTO brands (id, workspace_id, name, domain)
           SELECT ${idSql('c0000003', ws, 'b')}, '${wsId}', 'Brand ' || b, 'brand' || b || '.test' FROM generate_series(0, ${BRANDS - 1}) b`);
  await q(`INSERT INTO members (workspace_id, user_id, role, brand_ids, joined_at) VALUES
             ('${wsId}', '${owner}', 'owner', NULL, '2025-01-01'),
             ('${wsId}', '${limited}', 'member', ARRAY['${id('c0000003', ws, 0)}', '${id('c0000003', ws, 1)}']::uuid[], '2025-01-01')`);
  // n = 0 is the target; the others fill the workspace, round-robin over the brands.
  await q(`INSERT INTO analyses (id, workspace_id, brand_id, slug, name, owned_domains, engines, created_at)
           SELECT ${idSql('c0000004', ws, 'n')}, '${wsId}', ${idSql('c0000003', ws, `n % ${BRANDS}`)},
                  CASE WHEN n = 0 THEN 'target' ELSE 'a-' || lpad(n::text, 6, '0') END, 'Analysis ' || n,
                  '{brand0.test}', '{chatgpt,perplexity,gemini}', '2025-02-01'
             FROM generate_series(0, ${analyses - 1}) n`);
  const target = id('c0000004', ws, 0);
  const keys: Array<[Scope, string, string, string | null, string | null]> = [
    ['workspace', owner, 'workspace', null, null],
    ['brand', owner, 'brand', id('c0000003', ws, 0), null],
    ['analysis', owner, 'analysis', null, target],
    ['restricted', limited, 'workspace', null, null],
  ];
  for (const [label, creator, scope, brand, analysis] of keys) {
    const s = secret(ws, label);
    await q(
      `INSERT INTO api_keys (id, workspace_id, name, prefix, fingerprint, scope, brand_id, analysis_id, created_by, created_at, expires_at)
       VALUES ($1, '${wsId}', $2, $3, $4, $5, $6, $7, $8, now() - interval '1 day', now() + interval '10 years')`,
      [id('c0000005', ws, SCOPES.indexOf(label)), label, visiblePrefix(s), fingerprint(s), scope, brand, analysis, creator],
    );
  }
  // The target's measurements: 30 daily runs × 3 engines × 20 prompts, aggregated as the pipeline does.
  await q(
    `INSERT INTO competitors (id, analysis_id, name, domain) VALUES ('${id('c000000a', ws, 1)}', '${target}', 'Rival', 'rival.test')`,
  );
  await q(`INSERT INTO prompts (id, analysis_id, text, language, created_at)
           SELECT ${idSql('c0000007', ws, 'p')}, '${target}', 'Question ' || p, 'en', '2025-02-01'::timestamptz + p * interval '1 second'
             FROM generate_series(0, 19) p`);
  const start = `('${END}'::date - 29)`;
  await q(`INSERT INTO runs (id, analysis_id, state, started_at, collected_at, finished_at)
           SELECT ${idSql('c0000006', ws, 'd')}, '${target}', 'finished', (${start} + d) + interval '6 hours',
                  (${start} + d) + interval '6 hours 30 minutes', (${start} + d) + interval '7 hours'
             FROM generate_series(0, 29) d`);
  await q(`INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed, recipe)
           SELECT ${idSql('c0000006', ws, 'd')}, e, 'done', 20, 20, 20, 0, 'extract-v3'
             FROM generate_series(0, 29) d, unnest(ARRAY['chatgpt','perplexity','gemini']) e`);
  await q(`INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state, recipe)
           SELECT ${idSql('c0000008', ws, 'n')}, '${target}', ${idSql('c0000006', ws, 'd')}, ${idSql('c0000007', ws, 'p')},
                  (ARRAY['chatgpt','perplexity','gemini'])[e + 1], (${start} + d) + interval '6 hours' + (e * 20 + p) * interval '1 second',
                  'Answer ' || n, 'extracted', 'extract-v3'
             FROM (SELECT d, e, p, (d * 3 + e) * 20 + p AS n FROM generate_series(0, 29) d, generate_series(0, 2) e, generate_series(0, 19) p) x`);
  await q(`INSERT INTO mentions (answer_id, position, brand_name, is_tracked, competitor_id, sentiment)
           SELECT ${idSql('c0000008', ws, 'n')}, 1, 'Brand 0', true, NULL::uuid, 0.5 FROM generate_series(0, 1799) n WHERE ${u('n', 1)} < 0.4
           UNION ALL
           SELECT ${idSql('c0000008', ws, 'n')}, 2, 'Rival', false, '${id('c000000a', ws, 1)}'::uuid, -0.2 FROM generate_series(0, 1799) n WHERE ${u('n', 2)} < 0.5`);
  await q(`INSERT INTO citations (answer_id, ordinal, url, domain)
           SELECT ${idSql('c0000008', ws, 'n')}, k, 'https://' || dom || '/p' || n, dom
             FROM generate_series(0, 1799) n, generate_series(1, 2) k,
                  LATERAL (SELECT (ARRAY['brand0.test','rival.test','wiki.test'])[1 + (n + k) % 3] AS dom) x`);
  await q(`SELECT count(finish_run_extraction(id)) FROM (SELECT id FROM runs WHERE analysis_id = '${target}' ORDER BY started_at) r`);
}

async function fill(db: Queryable): Promise<void> {
  const q = (sql: string) => db.query(sql);
  await migrate(db);
  await q(`INSERT INTO plans (key, label, api_access, calls_per_minute) VALUES ('bench', 'Bench', true, 1000000) ON CONFLICT DO NOTHING`);
  await q(
    `INSERT INTO engines (key, name) VALUES ('chatgpt', 'ChatGPT'), ('perplexity', 'Perplexity'), ('gemini', 'Gemini') ON CONFLICT DO NOTHING`,
  );
  for (const [i, size] of SIZES.entries()) await fillWorkspace(db, i + 1, size);
  // The crowded workspace: one analysis, 10,000 members, 100,000 keys.
  await fillWorkspace(db, CROWD, 1);
  const crowd = id('c0000001', CROWD, 1);
  await q(`INSERT INTO users (id, email, name) SELECT ${idSql('c0000002', CROWD, 'n')}, 'm' || n || '@crowd.test', 'Member ' || n
             FROM generate_series(2, 10001) n`);
  await q(`INSERT INTO members (workspace_id, user_id, role, joined_at) SELECT '${crowd}', ${idSql('c0000002', CROWD, 'n')}, 'member', '2025-01-01'
             FROM generate_series(2, 10001) n`);
  await q(`INSERT INTO api_keys (id, workspace_id, name, prefix, fingerprint, scope, created_by, created_at, expires_at)
           SELECT ${idSql('c0000005', CROWD, 'k')}, '${crowd}', 'key ' || k, 'geo_live_cro', encode(sha256(('crowd-' || k)::bytea), 'hex'),
                  'workspace', ${idSql('c0000002', CROWD, '2 + k % 10000')}, now() - interval '2 days', now() + interval '10 years'
             FROM generate_series(10, 100009) k`);
  // Catalogue sizes: beside the target, one analysis per size, its prompts all in one group.
  await fillWorkspace(db, GROUPS, 1);
  let first = 100;
  for (const [g, size] of CATALOGUE_SIZES.entries()) {
    const analysis = id('c0000004', GROUPS, 100 + g);
    await q(`INSERT INTO analyses (id, workspace_id, brand_id, slug, name, owned_domains, engines, created_at)
             VALUES ('${analysis}', '${id('c0000001', GROUPS, 1)}', '${id('c0000003', GROUPS, 0)}', 'prompts-${size}', 'Prompts ${size}',
                     '{brand0.test}', '{chatgpt,perplexity,gemini}', '2025-02-01')`);
    await q(
      `INSERT INTO prompt_groups (id, analysis_id, name, created_at) VALUES ('${id('c0000009', GROUPS, g + 1)}', '${analysis}', 'Group of ${size}', '2025-02-01')`,
    );
    await q(`INSERT INTO prompts (id, analysis_id, group_id, text, language, created_at)
             SELECT ${idSql('c0000007', GROUPS, 'p')}, '${analysis}', '${id('c0000009', GROUPS, g + 1)}',
                    'How does grouped question ' || p || ' compare across the vendors we track this quarter?', 'en',
                    '2025-03-01'::timestamptz + p * interval '1 second'
               FROM generate_series(${first}, ${first + size - 1}) p`);
    first += size;
  }
  await q('VACUUM ANALYZE');
}

interface Case {
  section: 'analyses' | 'crowd' | 'catalogue' | 'isolation';
  read: string;
  scope: string;
  column: string;
  path: string;
  key: string;
  status: number;
  /** A JSON-RPC body: the case is a POST to /mcp. */
  rpc?: unknown;
}

/**
 * The statements alone, inside the database: each run `n` times in a loop of PL/pgSQL (plans kept, as per
 * backend in service), batches of every size in turn; microseconds per call, median of the batches.
 */
async function statementCosts(url: string): Promise<string> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await db.query(`CREATE FUNCTION pg_temp.bench_loop(sql text, n integer) RETURNS float8 LANGUAGE plpgsql AS $$
      DECLARE t0 timestamptz := clock_timestamp();
      BEGIN
        FOR i IN 1..n LOOP EXECUTE sql; END LOOP;
        RETURN extract(epoch FROM clock_timestamp() - t0) * 1e6 / n;
      END $$`);
    const lit = (v: string) => `'${v.replaceAll("'", "''")}'`;
    const statements: Record<string, (ws: number, scope: Scope, last: string) => string> = {
      'api_caller, no analysis (/me)': (ws, scope) => `SELECT * FROM api_caller(${lit(fingerprint(secret(ws, scope)))}, 0, NULL, false)`,
      'api_caller, analysis by slug': (ws, scope) => `SELECT * FROM api_caller(${lit(fingerprint(secret(ws, scope)))}, 0, 'target', false)`,
      'api_analyses_page, first page': (ws, scope) =>
        `SELECT * FROM api_analyses_page('${id('c0000005', ws, SCOPES.indexOf(scope))}', '', 51)`,
      'api_analyses_page, last page': (ws, scope, last) =>
        `SELECT * FROM api_analyses_page('${id('c0000005', ws, SCOPES.indexOf(scope))}', ${lit(last)}, 51)`,
    };
    const lastAfter = new Map<string, string>();
    for (const [i] of SIZES.entries())
      for (const scope of SCOPES) {
        const all = (
          await db.query<{ slug: string }>(`SELECT slug FROM api_analyses_page($1, '', 100000)`, [
            id('c0000005', i + 1, SCOPES.indexOf(scope)),
          ])
        ).rows.map((r) => r.slug);
        lastAfter.set(`${i + 1}|${scope}`, all.length > 50 ? (all[all.length - 51] as string) : '');
      }
    // Batches of 200 calls.
    const N = 200;
    const BATCHES = 9;
    const rows: Array<Record<string, string | number>> = [];
    for (const [name, sql] of Object.entries(statements))
      for (const scope of SCOPES) {
        const per: number[][] = SIZES.map(() => []);
        const texts = SIZES.map((_, i) => sql(i + 1, scope, lastAfter.get(`${i + 1}|${scope}`) ?? ''));
        for (const text of texts) await db.query('SELECT pg_temp.bench_loop($1, 20)', [text]);
        for (let b = 0; b < BATCHES; b += 1)
          for (const i of b % 2 === 0 ? [0, 1, 2] : [2, 1, 0])
            per[i]?.push(
              (await db.query<{ us: number }>('SELECT pg_temp.bench_loop($1, $2) AS us', [texts[i], N])).rows[0]?.us ?? Number.NaN,
            );
        const [one, thousand, tenThousand] = per.map((xs) => stats(xs).p50);
        rows.push({
          statement: name,
          key: scope === 'restricted' ? 'workspace, creator limited to 2 brands' : scope,
          '1 analysis (µs)': Math.round(one as number),
          '1,000': Math.round(thousand as number),
          '10,000': Math.round(tenThousand as number),
          '10,000 / 1': ((tenThousand as number) / (one as number)).toFixed(2),
          '10,000 / 1,000': ((tenThousand as number) / (thousand as number)).toFixed(2),
        });
      }
    // Isolation inside the database: the brand key naming an analysis of another brand, and a slug that
    // does not exist, in turn.
    const iso: Array<Record<string, string | number>> = [];
    for (const [i, size] of SIZES.entries()) {
      if (size === 1) continue;
      const fp = lit(fingerprint(secret(i + 1, 'brand')));
      const texts = [
        `SELECT * FROM api_caller(${fp}, 0, 'a-000001', false)`,
        `SELECT * FROM api_caller(${fp}, 0, 'no-such-analysis', false)`,
      ];
      const per: number[][] = [[], []];
      for (const text of texts) await db.query('SELECT pg_temp.bench_loop($1, 20)', [text]);
      for (let b = 0; b < BATCHES * 2; b += 1)
        for (const j of b % 2 === 0 ? [0, 1] : [1, 0])
          per[j]?.push(
            (await db.query<{ us: number }>('SELECT pg_temp.bench_loop($1, $2) AS us', [texts[j], N * 2])).rows[0]?.us ?? Number.NaN,
          );
      const [out, none] = per.map((xs) => stats(xs).p50) as [number, number];
      iso.push({
        workspace: `${size.toLocaleString('en-US')} analyses`,
        'out of reach (µs)': Math.round(out),
        'nonexistent (µs)': Math.round(none),
        'out / nonexistent': (out / none).toFixed(2),
      });
    }
    return `${table(rows)}\n\nThe same statement for an analysis out of the brand key's reach and for one that does not exist:\n\n${table(iso)}`;
  } finally {
    await db.end();
  }
}

/**
 * The catalogue's statements inside the database, as statementCosts measures the caller's: MCP's page of
 * the catalogue and a group's page of prompts, first and last, at each catalogue size.
 */
async function catalogueStatementCosts(url: string): Promise<string> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await db.query(`CREATE FUNCTION pg_temp.bench_loop(sql text, n integer) RETURNS float8 LANGUAGE plpgsql AS $$
      DECLARE t0 timestamptz := clock_timestamp();
      BEGIN
        FOR i IN 1..n LOOP EXECUTE sql; END LOOP;
        RETURN extract(epoch FROM clock_timestamp() - t0) * 1e6 / n;
      END $$`);
    const analysis = (g: number) => id('c0000004', GROUPS, 100 + g);
    const group = (g: number) => id('c0000009', GROUPS, g + 1);
    const statements: Record<string, (g: number, size: number) => string> = {
      'api_prompts_page, first 100': (g) => `SELECT * FROM api_prompts_page('${analysis(g)}', 100, 0)`,
      'api_prompts_page, last 100': (g, size) => `SELECT * FROM api_prompts_page('${analysis(g)}', 100, ${size - 100})`,
      'api_prompt_catalog, every prompt': (g) => `SELECT * FROM api_prompt_catalog('${analysis(g)}')`,
      'api_fig_group_prompts, first 50': (g) =>
        `SELECT api_fig_group_prompts('${analysis(g)}', 'last-run', NULL, NULL, '${group(g)}', false, 50, 0)`,
      'api_fig_group_prompts, last 50': (g, size) =>
        `SELECT api_fig_group_prompts('${analysis(g)}', 'last-run', NULL, NULL, '${group(g)}', false, 50, ${size - 50})`,
    };
    const N = 100;
    const BATCHES = 9;
    const rows: Array<Record<string, string | number>> = [];
    for (const [name, sql] of Object.entries(statements)) {
      const texts = CATALOGUE_SIZES.map((size, g) => sql(g, size));
      const per: number[][] = CATALOGUE_SIZES.map(() => []);
      for (const text of texts) await db.query('SELECT pg_temp.bench_loop($1, 20)', [text]);
      for (let b = 0; b < BATCHES; b += 1)
        for (const i of b % 2 === 0 ? [0, 1, 2] : [2, 1, 0])
          per[i]?.push(
            (await db.query<{ us: number }>('SELECT pg_temp.bench_loop($1, $2) AS us', [texts[i], N])).rows[0]?.us ?? Number.NaN,
          );
      const [a, b, c] = per.map((xs) => stats(xs).p50) as [number, number, number];
      rows.push({
        statement: name,
        '100 prompts (µs)': Math.round(a),
        '200 prompts': Math.round(b),
        '500 prompts': Math.round(c),
        '500 / 100': (c / a).toFixed(2),
        '500 / 200': (c / b).toFixed(2),
      });
    }
    return table(rows);
  } finally {
    await db.end();
  }
}

/**
 * What finishing a run costs, the month converging on its run rows (migration 016) against the additive
 * version it replaced (011, defined again here as a temporary function): one run of the target (30 daily
 * runs, 20 of them in its month, 3 engines × 20 prompts), finished again and again, batches alternating.
 */
async function finishCosts(url: string): Promise<string> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const old = await readFile(join(SQL_DIR, 'migrations', '011_figure_moments.sql'), 'utf8');
    const start = old.indexOf('CREATE OR REPLACE FUNCTION finish_run_extraction(');
    const end = old.indexOf('$$;', old.indexOf('PERFORM fig_apply_months(p_run, 1);', start)) + 3;
    await db.query(
      old.slice(start, end).replace('CREATE OR REPLACE FUNCTION finish_run_extraction(', 'CREATE FUNCTION pg_temp.finish_additive('),
    );
    const run = id('c0000006', 1, 15);
    const texts = [`SELECT pg_temp.finish_additive('${run}')`, `SELECT finish_run_extraction('${run}')`];
    const per: number[][] = [[], []];
    const N = 20;
    for (let b = 0; b < 10; b += 1)
      for (const i of b % 2 === 0 ? [0, 1] : [1, 0]) {
        await db.query('BEGIN');
        const t0 = performance.now();
        for (let k = 0; k < N; k += 1) await db.query(texts[i] as string);
        per[i]?.push(((performance.now() - t0) * 1000) / N);
        await db.query('COMMIT');
      }
    const [additive, settled] = per.map((xs) => stats(xs).p50) as [number, number];
    return table([
      {
        'one run (its month holds 20 runs of 3 engines × 20 prompts)': 'finish_run_extraction',
        'additive, 011 (µs)': Math.round(additive),
        'converging, 016 (µs)': Math.round(settled),
        ratio: (settled / additive).toFixed(2),
      },
    ]);
  } finally {
    await db.end();
  }
}

/**
 * Whether compressing the catalogue would let an analysis hold more prompts: 500 prompts of three kinds,
 * their reply as the REST face writes it, its Lambda response uncompressed (the body a JSON string) and
 * gzipped (the body base64, as API Gateway takes a binary reply). Text, group name and language at their
 * bounds of C0 controls (the costliest uncompressed), of code points drawn at random from the astral planes
 * (the costliest compressed; a fixed-seed generator), and real prompts of two sentences.
 */
function catalogueCompression(): string {
  let seed = 20261128;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const astral = (n: number) => Array.from({ length: n }, () => String.fromCodePoint(0x10000 + Math.floor(next() * 0xe0000))).join('');
  const c0 = (n: number) => '\u0001'.repeat(n);
  const kinds: Array<[string, (i: number) => [string, string, string]]> = [
    ['C0 controls at the bounds', () => [c0(1000), c0(300), c0(35)]],
    ['astral code points at the bounds', () => [astral(1000), astral(300), astral(35)]],
    [
      'real prompts (two sentences)',
      (i) => [`How does grouped question ${i} compare across the vendors we track this quarter?`, 'Pricing', 'en'],
    ],
  ];
  const rows = kinds.map(([kind, make]) => {
    const items = Array.from({ length: 500 }, (_, i) => {
      const [text, name, language] = make(i);
      const n = i.toString(16).padStart(12, '0');
      return {
        id: `c0000007-0000-4000-8000-${n}`,
        text,
        group: { id: 'c0000009-0000-4000-8000-000000000001', name },
        language,
        created_at: '2025-03-01T00:00:00.000Z',
      };
    });
    const body = JSON.stringify({ items, next_cursor: null, truncated: false, total: 500 });
    const plain = Buffer.byteLength(JSON.stringify({ statusCode: 200, body }));
    const gzipped = Buffer.byteLength(JSON.stringify({ statusCode: 200, isBase64Encoded: true, body: gzipSync(body).toString('base64') }));
    return {
      '500 prompts': kind,
      'Lambda response (bytes)': plain,
      gzipped: gzipped,
      'per prompt': Math.round(plain / 500),
      'per prompt, gzipped': Math.round(gzipped / 500),
    };
  });
  return table(rows);
}

export default async function run(): Promise<string> {
  const url = await serverDatabase(DB_NAME, fill);
  const bench = await benchApi(withUser(url, 'geo_reader'));
  const base = bench.api.baseUrl;
  const call = async (path: string, key: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const cases: Case[] = [];
  for (const [i, size] of SIZES.entries()) {
    const ws = i + 1;
    const column = size.toLocaleString('en-US');
    for (const scope of SCOPES) {
      const key = secret(ws, scope);
      const add = (read: string, path: string) => cases.push({ section: 'analyses', read, scope, column, path, key, status: 200 });
      add('GET /me', '/me');
      add('GET /analyses/{a} (by slug)', '/analyses/target');
      add('GET /analyses/{a} (by id)', `/analyses/${id('c0000004', ws, 0).toUpperCase()}`);
      add('GET /analyses/{a}/metrics', '/analyses/target/metrics');
      add('GET /analyses, first page', '/analyses');
      // The last page: walk the cursors once.
      let path = '/analyses';
      for (;;) {
        const page = await call(path, key);
        if (page.status !== 200) throw new Error(`${path}: ${page.status} ${JSON.stringify(page.body)}`);
        const next = page.body.next_cursor as string | null;
        if (next === null) break;
        path = `/analyses?cursor=${encodeURIComponent(next)}`;
      }
      add('GET /analyses, last page', path);
    }
    // Isolation: an analysis out of the brand key's reach and one that does not exist answer alike.
    const brandKey = secret(ws, 'brand');
    if (size > 1) {
      cases.push({
        section: 'isolation',
        read: 'out of reach (another brand)',
        scope: 'brand',
        column,
        path: '/analyses/a-000001',
        key: brandKey,
        status: 404,
      });
      cases.push({
        section: 'isolation',
        read: 'nonexistent',
        scope: 'brand',
        column,
        path: '/analyses/no-such-analysis',
        key: brandKey,
        status: 404,
      });
    }
  }
  for (const [ws, column] of [
    [1, '1 member, 4 keys'],
    [CROWD, '10,000 members, 100,000 keys'],
  ] as const) {
    const key = secret(ws, 'workspace');
    cases.push({ section: 'crowd', read: 'GET /me', scope: 'workspace', column, path: '/me', key, status: 200 });
    cases.push({
      section: 'crowd',
      read: 'GET /analyses/{a}/metrics',
      scope: 'workspace',
      column,
      path: '/analyses/target/metrics',
      key,
      status: 200,
    });
  }
  for (const [g, size] of CATALOGUE_SIZES.entries()) {
    const key = secret(GROUPS, 'workspace');
    const column = size.toLocaleString('en-US');
    const slug = `prompts-${size}`;
    const add = (read: string, path: string, rpc?: unknown) =>
      cases.push({ section: 'catalogue', read, scope: 'workspace', column, path, key, status: 200, ...(rpc ? { rpc } : {}) });
    const listPrompts = (offset: number) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_prompts', arguments: { analysis: slug, limit: 100, offset } },
    });
    add('REST GET /analyses/{a}/prompts (every prompt)', `/analyses/${slug}/prompts`);
    add('MCP list_prompts, first page of 100', '/mcp', listPrompts(0));
    add('MCP list_prompts, last page of 100', '/mcp', listPrompts(size - 100));
    const group = `/analyses/${slug}/groups/${id('c0000009', GROUPS, g + 1)}/prompts`;
    add('GET …/groups/{g}/prompts, first page of 50', `${group}?limit=50`);
    add('GET …/groups/{g}/prompts, last page of 50', `${group}?limit=50&offset=${size - 50}`);
  }

  const samples = new Map<Case, number[]>(cases.map((c) => [c, []]));
  const callerStage = new Map<Case, number[]>(cases.map((c) => [c, []]));
  const dataStage = new Map<Case, number[]>(cases.map((c) => [c, []]));
  const replyBytes = new Map<Case, number>();
  const once = async (c: Case): Promise<void> => {
    const t0 = performance.now();
    const res = await fetch(
      `${base}${c.path}`,
      c.rpc
        ? {
            method: 'POST',
            headers: {
              authorization: `Bearer ${c.key}`,
              accept: 'application/json, text/event-stream',
              'content-type': 'application/json',
            },
            body: JSON.stringify(c.rpc),
          }
        : { headers: { authorization: `Bearer ${c.key}` } },
    );
    const bytes = await res.arrayBuffer();
    samples.get(c)?.push(performance.now() - t0);
    replyBytes.set(c, bytes.byteLength);
    const timing = res.headers.get('server-timing') ?? '';
    const m = /caller;dur=([\d.]+)/.exec(timing);
    if (m) callerStage.get(c)?.push(Number(m[1]));
    const d = /(?:^|,\s*)data;dur=([\d.]+)/.exec(timing);
    if (d) dataStage.get(c)?.push(Number(d[1]));
    if (res.status !== c.status) throw new Error(`${c.path} (${c.scope}): ${res.status}, expected ${c.status}`);
    if (c.rpc && new TextDecoder().decode(bytes).includes('"isError":true')) throw new Error(`${c.path}: the tool answered an error`);
  };
  // The cases that differ only by what surrounds the read are measured call by call in turn, in an order
  // that alternates, so a busy moment of the machine falls on each of them alike.
  const groups = new Map<string, Case[]>();
  for (const c of cases) {
    // Isolation compares two reads on the same workspace, the other sections one read across workspaces.
    const k = c.section === 'isolation' ? `${c.section}|${c.column}` : `${c.section}|${c.read}|${c.scope}`;
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  for (let i = 0; i < 3; i += 1) for (const c of cases) await once(c);
  for (const c of cases) {
    samples.set(c, []);
    callerStage.set(c, []);
    dataStage.set(c, []);
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? [...groups.values()] : [...groups.values()].reverse();
    for (const group of order)
      for (let i = 0; i < CALLS_PER_ROUND; i += 1) for (const c of (i + round) % 2 === 0 ? group : [...group].reverse()) await once(c);
  }
  await bench.close();
  const p50 = (c: Case | undefined) => (c ? stats(samples.get(c) ?? []).p50 : Number.NaN);
  const idP50 = (c: Case | undefined) => (c ? stats(callerStage.get(c) ?? []).p50 : Number.NaN);
  const find = (section: Case['section'], read: string, scope: string, column: string) =>
    cases.find((c) => c.section === section && c.read === read && c.scope === scope && c.column === column);
  const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) ? (a / b).toFixed(2) : '');

  const rows: Array<Record<string, string | number>> = [];
  const reads = [...new Set(cases.filter((c) => c.section === 'analyses').map((c) => c.read))];
  for (const read of reads)
    for (const scope of SCOPES) {
      const [one, thousand, tenThousand] = SIZES.map((s) => p50(find('analyses', read, scope, s.toLocaleString('en-US'))));
      rows.push({
        read,
        key: scope === 'restricted' ? 'workspace, creator limited to 2 brands' : scope,
        '1 analysis': one as number,
        '1,000': thousand as number,
        '10,000': tenThousand as number,
        '1,000 / 1': ratio(thousand as number, one as number),
        '10,000 / 1': ratio(tenThousand as number, one as number),
        '10,000 / 1,000': ratio(tenThousand as number, thousand as number),
        'caller SQL 10,000 / 1': ratio(idP50(find('analyses', read, scope, '10,000')), idP50(find('analyses', read, scope, '1'))),
      });
    }
  const isolation = SIZES.filter((s) => s > 1).map((s) => {
    const column = s.toLocaleString('en-US');
    const out = p50(find('isolation', 'out of reach (another brand)', 'brand', column));
    const none = p50(find('isolation', 'nonexistent', 'brand', column));
    const outId = idP50(find('isolation', 'out of reach (another brand)', 'brand', column));
    const noneId = idP50(find('isolation', 'nonexistent', 'brand', column));
    return {
      workspace: `${column} analyses`,
      'out of reach p50': out,
      'nonexistent p50': none,
      'out / nonexistent': ratio(out, none),
      'caller SQL, out / nonexistent': ratio(outId, noneId),
    };
  });
  const crowdRows = ['GET /me', 'GET /analyses/{a}/metrics'].map((read) => {
    const few = p50(find('crowd', read, 'workspace', '1 member, 4 keys'));
    const many = p50(find('crowd', read, 'workspace', '10,000 members, 100,000 keys'));
    return { read, '1 member, 4 keys': few, '10,000 members, 100,000 keys': many, ratio: ratio(many, few) };
  });
  const catalogueReads = [...new Set(cases.filter((c) => c.section === 'catalogue').map((c) => c.read))];
  const catalogueRows = catalogueReads.map((read) => {
    const at = CATALOGUE_SIZES.map((s) => find('catalogue', read, 'workspace', s.toLocaleString('en-US')));
    const [a, b, c] = at.map(p50);
    const [da, , dc] = at.map((x) => (x ? stats(dataStage.get(x) ?? []).p50 : Number.NaN));
    return {
      read,
      '100 prompts': a as number,
      '200 prompts': b as number,
      '500 prompts': c as number,
      '500 / 100': ratio(c as number, a as number),
      '500 / 200': ratio(c as number, b as number),
      'data step 500 / 100': ratio(dc as number, da as number),
      'reply at 500 (KB)': Math.round((replyBytes.get(at[2] as Case) ?? 0) / 1024),
    };
  });
  const inside = await statementCosts(url);
  const catalogueInside = await catalogueStatementCosts(url);
  const finishing = await finishCosts(url);
  return [
    'The statements inside the database (µs per call, median of alternating batches of 200 calls):',
    '',
    inside,
    '',
    `Through HTTP, workspace size (p50 ms, ${ROUNDS} alternating rounds × ${CALLS_PER_ROUND} calls per case, sizes in turn call by call):`,
    '',
    table(rows),
    '',
    'Out of reach and nonexistent, brand key (p50 ms, 404 both):',
    '',
    table(isolation),
    '',
    'Members and keys (p50 ms):',
    '',
    table(crowdRows),
    '',
    'Catalogue size (p50 ms; one group holding every prompt; no collection):',
    '',
    table(catalogueRows),
    '',
    'The catalogue statements inside the database (µs per call, median of alternating batches of 100 calls):',
    '',
    catalogueInside,
    '',
    'Finishing a run (µs per call from the client, median of alternating batches of 20 calls):',
    '',
    finishing,
    '',
    'The catalogue of 500 prompts as a Lambda response, plain and gzipped:',
    '',
    catalogueCompression(),
  ].join('\n');
}
