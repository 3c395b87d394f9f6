import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { z } from 'zod';
import { migrate } from '#shared/admin/migrate.js';
import { toolDef } from '#shared/mcp/tools.js';
import { RUN_SIZE } from '#shared/reads/catalog/runs.js';
import { ASSISTANT_DEFAULT_CHARS, ASSISTANT_RESULT_BYTES, DEFAULT_PAGE_MARGIN_CHARS } from '#shared/reads/contracts/result-size.js';
import { GROUP_PROMPT_SIZE } from '#shared/reads/figures/groups.js';
import { SERIES_SIZE } from '#shared/reads/figures/timeseries.js';
import { reads } from '#shared/reads/registry.js';
import { MAX_WINDOW_DAYS, WINDOW_NAMES } from '#shared/reads/windows.js';
import { type BenchApi, benchApi, closeBench, table, withUser } from '../bench/harness.js';
import { LARGE_ENGINES, largeManifest, seedLarge } from '../fixtures/large-dataset.js';
import { resultSizes } from '../mcp/args.js';
import {
  type LongHistorySizes,
  largest,
  largestChars,
  largestPerTool,
  longHistorySizes,
  pageFitsAnyWindow,
  type Sized,
} from '../mcp/long-history.js';
import { freshDatabase, type ServerDatabase } from './support/stores.js';

/**
 * MCP result sizes on a long history, in CI: one year of daily runs
 * (test/fixtures/large-dataset.ts: 200 prompts × 6 engines × 365 runs, 438,000 answers) seeded into a fresh
 * database of the PostgreSQL server and dropped after. Through the SDK client:
 * - every tool with default arguments gives a text block and a JSON.stringify(structuredContent) of at most
 *   ASSISTANT_DEFAULT_CHARS characters each, what every host shows whole, and so does every default page
 *   with any named window a model may pick (get_metrics_timeseries: the windows its description advises);
 * - each paged tool's default page is the largest that stays DEFAULT_PAGE_MARGIN_CHARS under that, with
 *   whichever window makes it heaviest;
 * - a wider legal call over ASSISTANT_RESULT_BYTES is one its tool description warns about, and the weight
 *   and the smaller call it quotes are the measured ones.
 * Seeding takes minutes; the test prints how long, and every size (the widest calls' table is the one
 * docs/mcp.md quotes).
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
const short = (args: Record<string, unknown>) => JSON.stringify(args).replace(m.analysisSlug, '…');
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
      `${sizes.defaults.length + sizes.windows.length + sizes.nextPages.length + sizes.extremes.length} tool calls measured in ${((Date.now() - t1) / 1000).toFixed(1)} s`,
  );
}, 600_000);

afterAll(async () => {
  await client?.close();
  await bench?.close();
  await closeBench();
  await database?.drop();
});

describe('one year of daily runs: what a host forwards to the model', () => {
  test(`every tool with default arguments: text block and structuredContent ≤ ${ASSISTANT_DEFAULT_CHARS} characters each`, () => {
    const worst = [...largestPerTool(sizes.defaults).values()];
    expect(worst.map((w) => w.tool).sort()).toEqual(tools.map((t) => t.name).sort());
    console.log(
      `Largest result per tool with default arguments, 1-year dataset (characters):\n${table(
        worst.map((w) => ({
          tool: w.tool,
          calls: w.calls,
          text_block: w.textChars,
          structured_content: w.structuredChars,
          headroom: ASSISTANT_DEFAULT_CHARS - largestChars(w),
          arguments: short(w.args),
        })),
      )}`,
    );
    const over = sizes.defaults
      .filter((s) => largestChars(s) > ASSISTANT_DEFAULT_CHARS)
      .map((s) => ({ tool: s.tool, args: short(s.args), chars: largestChars(s) }));
    expect(over).toEqual([]);
  });

  test(`every default page with every named window a model may pick: ≤ ${ASSISTANT_DEFAULT_CHARS} characters each`, () => {
    const picked = sizes.windows.filter((s) => pageFitsAnyWindow(s.tool, String(s.args.window)));
    const worst = [...largestPerTool(picked).values()];
    expect(worst.map((w) => w.tool)).toEqual(
      expect.arrayContaining(['list_group_prompts', 'list_groups', 'get_metrics', 'get_metrics_timeseries', 'list_answers']),
    );
    console.log(
      `Largest default call per tool over the named windows, 1-year dataset (characters):\n${table(
        worst.map((w) => ({
          tool: w.tool,
          calls: w.calls,
          text_block: w.textChars,
          structured_content: w.structuredChars,
          headroom: ASSISTANT_DEFAULT_CHARS - largestChars(w),
          arguments: short(w.args),
        })),
      )}`,
    );
    const over = picked
      .filter((s) => largestChars(s) > ASSISTANT_DEFAULT_CHARS)
      .map((s) => ({ tool: s.tool, args: short(s.args), chars: largestChars(s) }));
    expect(over).toEqual([]);
  });

  test(`each paged tool's default page is the largest that stays ${DEFAULT_PAGE_MARGIN_CHARS} characters under ${ASSISTANT_DEFAULT_CHARS}, up to REST's default`, () => {
    const fits = ASSISTANT_DEFAULT_CHARS - DEFAULT_PAGE_MARGIN_CHARS;
    // A whole-list read paged on MCP only (list_prompts: REST has no page to compare with) is held by the
    // default-call test above.
    const paged = tools.filter(
      (t) =>
        typeof (t.inputSchema.properties as Record<string, { default?: unknown }>)?.limit?.default === 'number' && !toolDef(t.name)?.slice,
    );
    expect(paged.length).toBeGreaterThan(0);
    const rows = paged.map((t) => {
      const page = (t.inputSchema.properties as { limit: { default: number } }).limit.default;
      const rest = (
        z.toJSONSchema(reads.find((r) => r.name === t.name)!.input, { io: 'input' }) as unknown as {
          properties: { limit: { default: number } };
        }
      ).properties.limit.default;
      const heaviest = largestPerTool([
        ...sizes.defaults,
        ...sizes.windows.filter((s) => pageFitsAnyWindow(s.tool, String(s.args.window))),
      ]).get(t.name)!;
      const next = sizes.nextPages.find((s) => s.tool === t.name)!;
      return { tool: t.name, page, rest, chars: largestChars(heaviest), next: largestChars(next), args: short(heaviest.args) };
    });
    console.log(
      `Default page per paged tool, 1-year dataset (characters; the page must stay within ${fits}):\n${table(
        rows.map((r) => ({
          tool: r.tool,
          default_page: r.page,
          rest_default: r.rest,
          largest_default_call: r.chars,
          one_item_more: r.next,
          arguments: r.args,
        })),
      )}`,
    );
    for (const r of rows) {
      expect({ tool: r.tool, fits: r.chars <= fits }).toEqual({ tool: r.tool, fits: true });
      // A page smaller than REST's is so because one more item would not fit.
      if (r.page < r.rest) expect({ tool: r.tool, largest: r.next > fits }).toEqual({ tool: r.tool, largest: true });
      else expect(r.page).toBe(r.rest);
    }
  });

  test(`a wider legal call (largest page, window all, ${MAX_WINDOW_DAYS}-day from/to) over ${ASSISTANT_RESULT_BYTES} bytes is one the tool description warns about`, () => {
    const widest = new Map<string, Sized>();
    for (const x of sizes.extremes) {
      const kind = `${x.tool} ${Object.keys(x.args)
        .filter((k) => k === 'limit' || k === 'window' || k === 'from')
        .join()}`;
      const w = widest.get(kind);
      if (!w || largest(x) > largest(w)) widest.set(kind, x);
    }
    console.log(
      `Widest legal calls (largest page, window=all, ${MAX_WINDOW_DAYS}-day from/to), the largest of each over every default call, 1-year dataset:\n${table(
        [...widest.values()].map((x) => ({
          tool: x.tool,
          text_chars: x.textChars,
          structured_chars: x.structuredChars,
          text_bytes: x.text,
          structured_bytes: x.structured,
          arguments: short(x.args),
        })),
      )}`,
    );
    const over = [...new Set(sizes.extremes.filter((x) => largest(x) > ASSISTANT_RESULT_BYTES).map((x) => x.tool))].sort();
    const warned = tools
      .filter((t) => /can exceed what an assistant shows whole/.test(t.description ?? ''))
      .map((t) => t.name)
      .sort();
    expect(over).toEqual(warned);
  });

  test('get_metrics_timeseries: the quoted weight of a day is the measured one; the smaller windows it advises are shown whole by every host', async () => {
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
      `get_metrics_timeseries: ${perDay.toFixed(0)} bytes a day (quoted: ${SERIES_SIZE.dayBytes}); ${advised.map((a) => `${short(a.args)}: ${largest(a)}`).join('; ')}`,
    );
    expect(Math.abs(perDay / SERIES_SIZE.dayBytes - 1)).toBeLessThanOrEqual(ABOUT);
    for (const a of advised)
      expect({ args: a.args, fits: largestChars(a) <= ASSISTANT_DEFAULT_CHARS }).toEqual({ args: a.args, fits: true });
    expect(description('get_metrics_timeseries')).toContain(
      `ask for ${SERIES_SIZE.window} or less, or walk from/to spans of at most ${SERIES_SIZE.spanDays} days`,
    );
  });

  test('get_metrics_timeseries with segments: the same for the weight it quotes with segments and the calls it advises then', async () => {
    const seg = SERIES_SIZE.segments;
    const all = sizes.extremes.find(
      (s) => s.tool === 'get_metrics_timeseries' && s.args.window === 'all' && s.args.segments === 'branded',
    )!;
    const d30 = await sized('get_metrics_timeseries', { analysis: m.analysisSlug, window: '30d', segments: 'branded' });
    const perDay = (largest(all) - largest(d30)) / (365 - 30);
    const advised = [
      await sized('get_metrics_timeseries', { analysis: m.analysisSlug, window: seg.window, segments: 'branded' }),
      await sized('get_metrics_timeseries', {
        analysis: m.analysisSlug,
        from: addDays(m.endDate, 1 - seg.spanDays),
        to: m.endDate,
        segments: 'branded',
      }),
    ];
    console.log(
      `get_metrics_timeseries with segments: ${perDay.toFixed(0)} bytes a day (quoted: ${seg.dayBytes}); ${advised.map((a) => `${short(a.args)}: ${largest(a)}`).join('; ')}`,
    );
    expect(Math.abs(perDay / seg.dayBytes - 1)).toBeLessThanOrEqual(ABOUT);
    for (const a of advised)
      expect({ args: a.args, fits: largestChars(a) <= ASSISTANT_DEFAULT_CHARS }).toEqual({ args: a.args, fits: true });
    expect(description('get_metrics_timeseries')).toContain(`(with segments: ${seg.window}, or ${seg.spanDays} days)`);
  });

  test('list_group_prompts: the quoted weight of a prompt per engine holds for every window; the page it advises is shown whole by every host, in every group and window', async () => {
    const groups = sizes.defaults.filter((s) => s.tool === 'list_group_prompts').map((s) => s.args);
    const weights: Array<{ window: string; perPromptEngine: number }> = [];
    for (const window of WINDOW_NAMES) {
      const one = await sized('list_group_prompts', { ...groups[0], window, limit: 1 });
      const ten = await sized('list_group_prompts', { ...groups[0], window, limit: 10 });
      weights.push({ window, perPromptEngine: Math.round((largest(ten) - largest(one)) / 9 / ENGINES) });
    }
    console.log(
      `list_group_prompts: bytes a prompt per engine by window (quoted: ${GROUP_PROMPT_SIZE.engineBytes}): ${weights
        .map((w) => `${w.window} ${w.perPromptEngine}`)
        .join(', ')}`,
    );
    // The quoted weight is an upper bound whatever the window, with headroom, yet still "about" the heaviest.
    const heaviest = Math.max(...weights.map((w) => w.perPromptEngine));
    expect(weights.filter((w) => w.perPromptEngine > GROUP_PROMPT_SIZE.engineBytes)).toEqual([]);
    expect(Math.abs(heaviest / GROUP_PROMPT_SIZE.engineBytes - 1)).toBeLessThanOrEqual(ABOUT);
    expect(ENGINES).toBe(GROUP_PROMPT_SIZE.engines);
    // The advised page is the default page, measured in every group with every window above.
    expect(toolDef('list_group_prompts')?.defaults.limit).toBe(GROUP_PROMPT_SIZE.limit);
    const pages = sizes.windows.filter((s) => s.tool === 'list_group_prompts');
    expect(pages.length).toBe(groups.length * WINDOW_NAMES.length);
    expect(pages.filter((p) => largestChars(p) > ASSISTANT_DEFAULT_CHARS).map((p) => short(p.args))).toEqual([]);
  });

  test('list_runs: the quoted weight of a run per engine is the measured one; the page it advises is shown whole by every host', async () => {
    const one = await sized('list_runs', { analysis: m.analysisSlug, limit: 1 });
    const hundred = sizes.extremes.find((s) => s.tool === 'list_runs')!;
    const perRunEngine = (largest(hundred) - largest(one)) / (Number(hundred.args.limit) - 1) / ENGINES;
    const advised = await sized('list_runs', { analysis: m.analysisSlug, limit: RUN_SIZE.limit });
    console.log(
      `list_runs: ${perRunEngine.toFixed(0)} bytes a run per engine (quoted: ${RUN_SIZE.engineBytes}); limit ${RUN_SIZE.limit}: ${largest(advised)}`,
    );
    expect(Math.abs(perRunEngine / RUN_SIZE.engineBytes - 1)).toBeLessThanOrEqual(ABOUT);
    expect(ENGINES).toBe(RUN_SIZE.engines);
    expect(largestChars(advised)).toBeLessThanOrEqual(ASSISTANT_DEFAULT_CHARS);
  });
});
