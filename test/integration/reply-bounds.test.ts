import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Queryable } from '#shared/store/queryable.js';
import type { LocalApi } from '../../local/stack.js';
import type { LocalStore } from '../../local/stores.js';
import { rpc, toolCall } from '../mcp/support.js';
import { call, LAMBDA_LIMIT, lambdaBytes } from '../support/api.js';
import { startOwnApi } from '../support/own-store.js';

/**
 * What the rest of an analysis can weigh (migration 029, docs/data-contract.md "Bounds"): its engines,
 * configured and collected from, its direct competitors, its owned domains and the names the reads repeat.
 * The store refuses one past each bound, and at every bound, each string made of the character that costs
 * most once escaped, the reads that list them stay under the 6 MB a Lambda function may answer, at the
 * largest page each takes. The bounds are written out here from the data contract, not imported from the code.
 */
const BOUND = {
  engines: 32,
  competitors: 100,
  ownedDomains: 50,
  domain: 253,
  aliases: 50,
  alias: 200,
  engineKey: 64,
  engineName: 100,
  brandName: 200,
  name: 300,
  slug: 300,
  language: 35,
  planKey: 64,
  recipe: 100,
  model: 100,
};

/** A C0 control: 6 bytes in a JSON string, 16 in the Lambda response of an MCP result (docs/data-contract.md). */
const worst = (n: number) => '\u0001'.repeat(n);
/** The i-th of up to 961 distinct strings of n C0 controls (the last two tell them apart). */
const worstNth = (n: number, i: number) => worst(n - 2) + String.fromCharCode(1 + Math.floor(i / 31), 1 + (i % 31));
const INT_MAX = 2_147_483_647;

const SLUG = 'reply-bounds';
/** Analyses beside it, as many as list_analyses' largest page, each name at its bound. */
const LISTED = 200;
/** The runs of the analysis, as many as list_runs' largest page, each over every engine. */
const RUNS = 100;
/** Configured engines; the runs also collect from two the analysis is not configured with. */
const CONFIGURED = BOUND.engines - 2;
const engineKey = (i: number) => worstNth(BOUND.engineKey, i);

type Outcome = { refused: false } | { refused: true; sqlstate: string; constraint: string };
const outcomes = new Map<string, Outcome>();
let latestRun = '';

/** Through the owner connection, as the pipeline and the product write: every bound reached, then one past each. */
async function writeBounds(db: Queryable): Promise<void> {
  const { rows } = await db.query<{ workspace: string }>(`SELECT workspace_id AS workspace FROM analyses WHERE slug = 'acme-core'`);
  const workspace = rows[0]!.workspace;
  const brand = (
    await db.query<{ id: string }>(
      `INSERT INTO brands (id, workspace_id, name, domain) VALUES (gen_random_uuid(), $1, $2, $3) RETURNING id`,
      [workspace, worst(BOUND.brandName), worst(BOUND.domain)],
    )
  ).rows[0]!.id;
  const keys = Array.from({ length: BOUND.engines + 1 }, (_, i) => engineKey(i));
  await db.query(`INSERT INTO engines (key, name) SELECT k, $2 FROM unnest($1::text[]) k`, [keys, worst(BOUND.engineName)]);
  const analysis = (
    await db.query<{ id: string }>(
      `INSERT INTO analyses (id, workspace_id, brand_id, slug, name, language, country, owned_domains, engines, brand_aliases)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $5, array_fill($6::text, ARRAY[$7::int]), $8, array_fill($9::text, ARRAY[$10::int]))
     RETURNING id`,
      [
        workspace,
        brand,
        SLUG,
        worst(BOUND.name),
        worst(BOUND.language),
        worst(BOUND.domain),
        BOUND.ownedDomains,
        keys.slice(0, CONFIGURED),
        worst(BOUND.alias),
        BOUND.aliases,
      ],
    )
  ).rows[0]!.id;
  await db.query(
    `INSERT INTO competitors (id, analysis_id, name, domain, domains)
     SELECT gen_random_uuid(), $1, n, $2, array_fill($2::text, ARRAY[$3::int]) FROM unnest($4::text[]) n`,
    [analysis, worst(BOUND.domain), BOUND.ownedDomains, Array.from({ length: BOUND.competitors }, (_, i) => worstNth(BOUND.brandName, i))],
  );
  // Runs still collecting, so none of them enters a figure; each one over all 32 engines, every count at
  // its widest, the recipe and model at their bounds.
  const runs = (
    await db.query<{ id: string }>(
      `INSERT INTO runs (id, analysis_id, state, started_at)
     SELECT gen_random_uuid(), $1, 'collecting', '2026-01-01T00:00:00Z'::timestamptz + n * interval '1 minute' FROM generate_series(1, $2::int) n
     RETURNING id`,
      [analysis, RUNS],
    )
  ).rows.map((r) => r.id);
  latestRun = (await db.query<{ id: string }>(`SELECT id FROM runs WHERE analysis_id = $1 ORDER BY started_at DESC LIMIT 1`, [analysis]))
    .rows[0]!.id;
  await db.query(
    `INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed, recipe, model)
     SELECT r, k, 'collecting', $3, $3, $3, $3, $4, $5 FROM unnest($1::uuid[]) r CROSS JOIN unnest($2::text[]) k`,
    [runs, keys.slice(0, BOUND.engines), INT_MAX, worst(BOUND.recipe), worst(BOUND.model)],
  );
  await db.query(
    `INSERT INTO analyses (id, workspace_id, brand_id, slug, name, engines)
     SELECT gen_random_uuid(), $1, $2, s, $3, '{}' FROM unnest($4::text[]) s`,
    [workspace, brand, worst(BOUND.name), Array.from({ length: LISTED }, (_, i) => worstNth(BOUND.slug, i))],
  );

  // One past each bound; each statement on its own, so one refusal does not hide the next.
  const attempt = async (label: string, sql: string, params: unknown[]): Promise<void> => {
    try {
      await db.query(sql, params);
      outcomes.set(label, { refused: false });
    } catch (err) {
      const e = err as { code?: string; constraint?: string };
      outcomes.set(label, { refused: true, sqlstate: String(e.code), constraint: String(e.constraint) });
    }
  };
  const extra = keys[BOUND.engines];
  await attempt(
    'a run collecting from a 33rd engine',
    `INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed) VALUES ($1, $2, 'pending', 0, 0, 0, 0)`,
    [latestRun, extra],
  );
  await attempt('a 33rd engine configured', `UPDATE analyses SET engines = engines || $2::text WHERE id = $1`, [analysis, extra]);
  await attempt('33 engines configured', `UPDATE analyses SET engines = array_fill($2::text, ARRAY[$3::int]) WHERE id = $1`, [
    analysis,
    'chatgpt',
    BOUND.engines + 1,
  ]);
  await attempt('a 101st competitor', `INSERT INTO competitors (id, analysis_id, name) VALUES (gen_random_uuid(), $1, 'One more')`, [
    analysis,
  ]);
  const update = (table: string, set: string, value: unknown) =>
    attempt(`${table}: ${set}`, `UPDATE ${table} SET ${set} = $2 WHERE id = $1`, [
      table === 'analyses' ? analysis : table === 'brands' ? brand : workspace,
      value,
    ]);
  await update('analyses', 'name', worst(BOUND.name + 1));
  await update('analyses', 'slug', worst(BOUND.slug + 1));
  await update('analyses', 'language', worst(BOUND.language + 1));
  await update('analyses', 'country', worst(BOUND.language + 1));
  await attempt('analyses: 51 owned_domains', `UPDATE analyses SET owned_domains = $2 WHERE id = $1`, [
    analysis,
    Array(BOUND.ownedDomains + 1).fill('a.example'),
  ]);
  await update('analyses', 'owned_domains', [worst(BOUND.domain + 1)]);
  await update('analyses', 'brand_aliases', [worst(BOUND.alias + 1)]);
  await update('brands', 'name', worst(BOUND.brandName + 1));
  await update('brands', 'domain', worst(BOUND.domain + 1));
  await update('workspaces', 'name', worst(BOUND.name + 1));
  await update('workspaces', 'slug', worst(BOUND.slug + 1));
  await attempt('engines: name', `UPDATE engines SET name = $2 WHERE key = $1`, [keys[0], worst(BOUND.engineName + 1)]);
  await attempt('plans: key', `INSERT INTO plans (key, label, api_access, calls_per_minute) VALUES ($1, 'Long', true, 1)`, [
    worst(BOUND.planKey + 1),
  ]);
  await attempt('api_keys: name', `UPDATE api_keys SET name = $1 WHERE workspace_id = $2`, [worst(BOUND.name + 1), workspace]);
  for (const [label, value] of [
    ['name', worst(BOUND.brandName + 1)],
    ['domain', worst(BOUND.domain + 1)],
    ['domains', [worst(BOUND.domain + 1)]],
  ] as const)
    await attempt(`competitors: ${label}`, `UPDATE competitors SET ${label} = $2 WHERE analysis_id = $1`, [analysis, value]);
}

let store: LocalStore;
let api: LocalApi;
let key: string;
beforeAll(async () => {
  ({ store, api, key } = await startOwnApi('geo_test_reply_bounds', writeBounds));
}, 180_000);
afterAll(async () => {
  await api?.close();
  await store?.close();
});

describe('the store refuses one past each bound of migration 029 (23514, naming the constraint)', () => {
  test.each([
    ['a run collecting from a 33rd engine', 'engines_per_analysis'],
    ['a 33rd engine configured', 'engines_per_analysis'],
    ['33 engines configured', 'analyses_engines_bound'],
    ['a 101st competitor', 'competitors_per_analysis'],
    ['analyses: name', 'analyses_name_length'],
    ['analyses: slug', 'analyses_slug_length'],
    ['analyses: language', 'analyses_language_length'],
    ['analyses: country', 'analyses_country_length'],
    ['analyses: 51 owned_domains', 'analyses_owned_domains_bound'],
    ['analyses: owned_domains', 'analyses_owned_domains_length'],
    ['analyses: brand_aliases', 'analyses_brand_aliases_length'],
    ['brands: name', 'brands_name_length'],
    ['brands: domain', 'brands_domain_length'],
    ['workspaces: name', 'workspaces_name_length'],
    ['workspaces: slug', 'workspaces_slug_length'],
    ['engines: name', 'engines_name_length'],
    ['plans: key', 'plans_key_length'],
    ['api_keys: name', 'api_keys_name_length'],
    ['competitors: name', 'competitors_name_length'],
    ['competitors: domain', 'competitors_domain_length'],
    ['competitors: domains', 'competitors_domains_length'],
  ])('%s: %s', (label, constraint) => {
    expect(outcomes.get(label)).toEqual({ refused: true, sqlstate: '23514', constraint });
  });
});

type Page = { items: unknown[]; total?: number; truncated?: boolean };

/** The largest page a tool takes, from its input schema as tools/list gives it. */
async function largestLimit(tool: string): Promise<number> {
  const tools = (await rpc(api, key, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).body.result.tools as Array<{
    name: string;
    inputSchema: { properties: { limit?: { maximum: number } } };
  }>;
  const max = tools.find((t) => t.name === tool)?.inputSchema.properties.limit?.maximum;
  if (max === undefined) throw new Error(`${tool} takes no limit`);
  return max;
}

/** The same read through REST and MCP: both served, each Lambda response measured. */
async function bothFaces(path: string, tool: string, args: Record<string, unknown>) {
  const rest = await call(api, path, key);
  expect(rest.status).toBe(200);
  const mcp = await rpc(api, key, toolCall(tool, args));
  expect(mcp.status).toBe(200);
  const result = mcp.body.result as CallToolResult;
  expect(result.isError).toBeFalsy();
  const sizes = { rest: lambdaBytes(rest), mcp: lambdaBytes(mcp) };
  console.log(`at the bounds, ${tool}: REST ${sizes.rest} bytes, MCP ${sizes.mcp} bytes as the Lambda response (limit ${LAMBDA_LIMIT})`);
  return { rest: JSON.parse(rest.text), mcp: result.structuredContent as Record<string, unknown>, sizes };
}

test('the document states each bound as the most items of the arrays it governs', async () => {
  const schemas = JSON.parse(await readFile('openapi/openapi.json', 'utf8')).components.schemas;
  const most = (schema: string, ...path: string[]) =>
    path.reduce((node, part) => node[part], schemas[schema].properties).maxItems as number;
  expect({
    analysisEngines: most('analysis', 'engines'),
    ownedDomains: most('analysis', 'owned_domains'),
    competitors: most('analysis', 'competitors'),
    listedRunEngines: most('run_summary', 'engines'),
    runEngines: most('run', 'engines'),
    engineList: most('engine_list', 'items'),
  }).toEqual({
    analysisEngines: BOUND.engines,
    ownedDomains: BOUND.ownedDomains,
    competitors: BOUND.competitors,
    listedRunEngines: BOUND.engines,
    runEngines: BOUND.engines,
    engineList: BOUND.engines,
  });
});

describe('at every bound, the reads that list engines, competitors, domains and names stay under 6 MB', () => {
  test('list_analyses, its largest page: every name, slug and brand name at its bound', async () => {
    const limit = await largestLimit('list_analyses');
    expect(limit).toBe(LISTED);
    const { rest, mcp, sizes } = await bothFaces(`/analyses?limit=${limit}`, 'list_analyses', { limit });
    expect([(rest as Page).items.length, (mcp as Page).items.length]).toEqual([LISTED, LISTED]);
    expect((rest as { items: Array<{ name: string }> }).items.every((a) => a.name === worst(BOUND.name))).toBe(true);
    expect(Math.max(sizes.rest, sizes.mcp)).toBeLessThan(LAMBDA_LIMIT);
  });

  test('get_analysis: 50 owned domains, the configured engines, 100 competitors, every string at its bound', async () => {
    const { rest, sizes } = await bothFaces(`/analyses/${SLUG}`, 'get_analysis', { analysis: SLUG });
    const a = rest as {
      owned_domains: string[];
      engines: Array<{ key: string; name: string }>;
      competitors: Array<{ name: string }>;
      language: string;
    };
    expect([a.owned_domains.length, a.engines.length, a.competitors.length]).toEqual([BOUND.ownedDomains, CONFIGURED, BOUND.competitors]);
    expect(a.engines[0]).toEqual({ key: engineKey(0), name: worst(BOUND.engineName) });
    expect(a.language).toBe(worst(BOUND.language));
    expect(Math.max(sizes.rest, sizes.mcp)).toBeLessThan(LAMBDA_LIMIT);
  });

  test('list_runs, its largest page: 100 runs over 32 engines, every key at its bound', async () => {
    const limit = await largestLimit('list_runs');
    expect(limit).toBe(RUNS);
    const { rest, mcp, sizes } = await bothFaces(`/analyses/${SLUG}/runs?limit=${limit}`, 'list_runs', { analysis: SLUG, limit });
    for (const page of [rest, mcp] as Array<{ items: Array<{ engines: unknown[] }> }>) {
      expect(page.items).toHaveLength(RUNS);
      expect(page.items.every((r) => r.engines.length === BOUND.engines)).toBe(true);
    }
    expect(Math.max(sizes.rest, sizes.mcp)).toBeLessThan(LAMBDA_LIMIT);
  });

  test('get_run: 32 engines with recipe and model at their bounds', async () => {
    const { rest, sizes } = await bothFaces(`/analyses/${SLUG}/runs/${latestRun}`, 'get_run', { analysis: SLUG, run: latestRun });
    expect((rest as { engines: unknown[] }).engines).toHaveLength(BOUND.engines);
    expect(Math.max(sizes.rest, sizes.mcp)).toBeLessThan(LAMBDA_LIMIT);
  });

  test('list_engines and list_competitors: every configured engine and direct competitor of the analysis', async () => {
    const engines = await bothFaces(`/analyses/${SLUG}/engines`, 'list_engines', { analysis: SLUG });
    const competitors = await bothFaces(`/analyses/${SLUG}/competitors`, 'list_competitors', { analysis: SLUG });
    // Never collected: every configured engine and every direct competitor listed at zero.
    expect([(engines.rest as Page).items.length, (competitors.rest as Page).items.length]).toEqual([CONFIGURED, BOUND.competitors]);
    expect(Math.max(engines.sizes.rest, engines.sizes.mcp, competitors.sizes.rest, competitors.sizes.mcp)).toBeLessThan(LAMBDA_LIMIT);
  });
});
