import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { migrate } from '#shared/admin/migrate.js';
import { RUN_SIZE } from '#shared/reads/catalog/runs.js';
import { ASSISTANT_RESULT_BYTES } from '#shared/reads/contracts/result-size.js';
import { GROUP_PROMPT_SIZE } from '#shared/reads/figures/groups.js';
import { SERIES_SIZE } from '#shared/reads/figures/timeseries.js';
import { type BenchApi, benchApi, closeBench, table, withUser } from '../bench/harness.js';
import { LARGE_ENGINES, largeManifest, seedLarge } from '../fixtures/large-dataset.js';
import { resultSizes } from '../mcp/args.js';
import { type LongHistorySizes, largest, largestPerTool, longHistorySizes, type Sized } from '../mcp/long-history.js';
import { freshDatabase, type ServerDatabase } from './support/stores.js';

/**
 * Issue 14 point 2 on a long history, in CI: one year of daily runs (test/fixtures/large-dataset.ts: 200 prompts ×
 * 6 engines × 365 runs, 438,000 answers) seeded into a fresh database of the PostgreSQL server and dropped
 * after. Every tool with default arguments, through the SDK client, gives a text block and a
 * JSON.stringify(structuredContent) of at most ASSISTANT_RESULT_BYTES each. A wider legal call that goes
 * over is one its tool description warns about, and the weight and the smaller call it quotes are the
 * measured ones. Seeding takes minutes; the test prints how long, and every size.
 */

const m = largeManifest({ years: 1 });
const ENGINES = LARGE_ENGINES.length;
/** "about": what a description quotes is a rounded figure; the measured one stays within this of it. */
const ABOUT = 0.2;

let database: ServerDatabase;
let bench: BenchApi;
let client: Client;
let tools: Tool[];
let sizes: LongHistorySizes;

const call = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> => {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${JSON.stringify(result.content)}`);
  return result;
};
const sized = async (tool: string, args: Record<string, unknown>): Promise<Sized> => ({
  tool,
  args,
  ...resultSizes(await call(tool, args)),
});
const description = (name: string) => tools.find((t) => t.name === name)?.description ?? '';
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  database = await freshDatabase('geo_rel_1y');
  const owner = new pg.Client({ connectionString: database.adminUrl });
  await owner.connect();
  let longest: string;
  const t0 = Date.now();
  try {
    await migrate(owner);
    await seedLarge(owner, { years: 1 });
    longest = (
      await owner.query<{ id: string }>('SELECT id FROM answers WHERE analysis_id = $1 ORDER BY length(text) DESC, id LIMIT 1', [
        m.analysisId,
      ])
    ).rows[0]!.id;
  } finally {
    await owner.end();
  }
  const seeded = Date.now() - t0;
  bench = await benchApi(withUser(database.adminUrl, 'geo_reader'));
  client = new Client({ name: 'geo-long-history', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${bench.api.baseUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${m.secret}` } },
    }),
  );
  tools = (await client.listTools()).tools;
  const t1 = Date.now();
  sizes = await longHistorySizes(call, tools, m, longest);
  console.log(
    `1-year dataset (${m.answers.toLocaleString('en')} answers) seeded into ${database.name} in ${(seeded / 1000).toFixed(1)} s; ` +
      `${sizes.defaults.length + sizes.extremes.length} tool calls measured in ${((Date.now() - t1) / 1000).toFixed(1)} s`,
  );
}, 600_000);

afterAll(async () => {
  await client?.close();
  await bench?.close();
  await closeBench();
  await database?.drop();
});

describe('one year of daily runs: what a host forwards to the model', () => {
  test(`every tool with default arguments: text block and structuredContent ≤ ${ASSISTANT_RESULT_BYTES} bytes each`, () => {
    const worst = [...largestPerTool(sizes.defaults).values()];
    expect(worst.map((w) => w.tool).sort()).toEqual(tools.map((t) => t.name).sort());
    console.log(
      `Largest result per tool with default arguments, 1-year dataset (bytes):\n${table(
        worst.map((w) => ({
          tool: w.tool,
          calls: w.calls,
          text_block: w.text,
          structured_content: w.structured,
          arguments: JSON.stringify(w.args).replace(m.analysisSlug, '…'),
        })),
      )}`,
    );
    for (const s of sizes.defaults)
      expect({ tool: s.tool, args: s.args, over: largest(s) > ASSISTANT_RESULT_BYTES }).toEqual({
        tool: s.tool,
        args: s.args,
        over: false,
      });
  });

  test('a wider legal call (largest page, window all) that goes over is one the tool description warns about', () => {
    console.log(
      `Widest legal page and window=all, 1-year dataset (bytes):\n${table(
        sizes.extremes.map((x) => ({
          tool: x.tool,
          text_block: x.text,
          structured_content: x.structured,
          arguments: JSON.stringify(x.args).replace(m.analysisSlug, '…'),
        })),
      )}`,
    );
    const over = [...new Set(sizes.extremes.filter((x) => largest(x) > ASSISTANT_RESULT_BYTES).map((x) => x.tool))].sort();
    const warned = tools
      .filter((t) => /can exceed what an assistant reads/.test(t.description ?? ''))
      .map((t) => t.name)
      .sort();
    expect(over).toEqual(warned);
  });

  test('get_metrics_timeseries: the quoted weight of a day is the measured one; the smaller windows it advises fit', async () => {
    const d30 = sizes.defaults.find((s) => s.tool === 'get_metrics_timeseries')!;
    const all = sizes.extremes.find((s) => s.tool === 'get_metrics_timeseries' && s.args.window === 'all')!;
    const perDay = (largest(all) - largest(d30)) / (365 - 30);
    const advised = [
      await sized('get_metrics_timeseries', { analysis: m.analysisSlug, window: SERIES_SIZE.window }),
      await sized('get_metrics_timeseries', {
        analysis: m.analysisSlug,
        from: addDays(m.endDate, 1 - SERIES_SIZE.spanDays),
        to: m.endDate,
      }),
    ];
    console.log(
      `get_metrics_timeseries: ${perDay.toFixed(0)} bytes a day (quoted: ${SERIES_SIZE.dayBytes}); ${advised.map((a) => `${JSON.stringify(a.args).replace(m.analysisSlug, '…')}: ${largest(a)}`).join('; ')}`,
    );
    expect(Math.abs(perDay / SERIES_SIZE.dayBytes - 1)).toBeLessThanOrEqual(ABOUT);
    for (const a of advised) expect({ args: a.args, fits: largest(a) <= ASSISTANT_RESULT_BYTES }).toEqual({ args: a.args, fits: true });
    expect(description('get_metrics_timeseries')).toContain(
      `ask for ${SERIES_SIZE.window} or less, or walk from/to spans of at most ${SERIES_SIZE.spanDays} days`,
    );
  });

  test('list_group_prompts: the quoted weight of a prompt per engine is the measured one; the page it advises fits every group', async () => {
    const groups = sizes.defaults.filter((s) => s.tool === 'list_group_prompts').map((s) => s.args);
    const one = await sized('list_group_prompts', { ...groups[0], limit: 1 });
    const ten = await sized('list_group_prompts', { ...groups[0], limit: 10 });
    const perPromptEngine = (largest(ten) - largest(one)) / 9 / ENGINES;
    console.log(`list_group_prompts: ${perPromptEngine.toFixed(0)} bytes a prompt per engine (quoted: ${GROUP_PROMPT_SIZE.engineBytes})`);
    expect(Math.abs(perPromptEngine / GROUP_PROMPT_SIZE.engineBytes - 1)).toBeLessThanOrEqual(ABOUT);
    expect(ENGINES).toBe(GROUP_PROMPT_SIZE.engines);
    for (const args of groups) {
      const page = await sized('list_group_prompts', { ...args, limit: GROUP_PROMPT_SIZE.limit });
      expect({ group: args.group, fits: largest(page) <= ASSISTANT_RESULT_BYTES }).toEqual({ group: args.group, fits: true });
    }
  });

  test('list_runs: the quoted weight of a run per engine is the measured one; the page it advises fits', async () => {
    const one = await sized('list_runs', { analysis: m.analysisSlug, limit: 1 });
    const hundred = sizes.extremes.find((s) => s.tool === 'list_runs')!;
    const perRunEngine = (largest(hundred) - largest(one)) / (Number(hundred.args.limit) - 1) / ENGINES;
    const advised = await sized('list_runs', { analysis: m.analysisSlug, limit: RUN_SIZE.limit });
    console.log(
      `list_runs: ${perRunEngine.toFixed(0)} bytes a run per engine (quoted: ${RUN_SIZE.engineBytes}); limit ${RUN_SIZE.limit}: ${largest(advised)}`,
    );
    expect(Math.abs(perRunEngine / RUN_SIZE.engineBytes - 1)).toBeLessThanOrEqual(ABOUT);
    expect(ENGINES).toBe(RUN_SIZE.engines);
    expect(largest(advised)).toBeLessThanOrEqual(ASSISTANT_RESULT_BYTES);
  });
});
