import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { PAGE_DEFAULT_BY_TOOL, toolDef } from '#shared/mcp/tools.js';
import { RUN_SIZE } from '#shared/reads/catalog/runs.js';
import { ASSISTANT_DEFAULT_CHARS, ASSISTANT_RESULT_BYTES, DEFAULT_PAGE_MARGIN_CHARS } from '#shared/reads/contracts/result-size.js';
import { GROUP_PROMPT_SIZE } from '#shared/reads/figures/groups.js';
import { SERIES_SIZE } from '#shared/reads/figures/timeseries.js';
import { reads } from '#shared/reads/registry.js';
import { pathParams } from '#shared/reads/types.js';
import { FIRST_DAY, LAST_DAY, MAX_WINDOW_DAYS } from '#shared/reads/windows.js';
import type { LocalApi } from '../../local/stack.js';
import { manifest, readerUrl, startTestApi } from '../support/api.js';
import { largestBytes, largestChars, resultSizes, type SizeRow, sizeTable, toolArgSets } from './args.js';
import { connect, rpc } from './support.js';

/**
 * What a host forwards to the model stays within what it accepts.
 * A host forwards either the text block or JSON.stringify(structuredContent), so both are measured.
 * - Every call with default arguments: at most 40,000 characters each (Gemini CLI cuts a longer result,
 *   and Claude Code sets aside one over 50,000 characters); a paged tool's default page leaves
 *   DEFAULT_PAGE_MARGIN_CHARS of that for what every result carries besides the read's body.
 * - Every legal call: at most 75,000 bytes each (ASSISTANT_RESULT_BYTES: Claude Code refuses a result
 *   over 25,000 tokens, JSON runs about 3 bytes a token), except on a read whose description declares
 *   what one unit of its result weighs and how to ask for less; there the result may be larger, but
 *   never more than the declared weight × its units + ENVELOPE_BYTES.
 * - The tool list itself, in full and in the part a model sees: a host reads it at every connection.
 */
const RESULT_LIMIT = ASSISTANT_RESULT_BYTES;
const DEFAULT_CALL_CHARS = ASSISTANT_DEFAULT_CHARS;
/**
 * 80 KB for the whole tools/list response: a host reads it at every connection, before any call. The
 * output schemas carry every figure a host checks results against (p-values, corrected flags, segments,
 * the direct share, source categories), which no model reads: what a model reads is bounded apart, below.
 */
const LIST_LIMIT = 81_920;
const MODEL_VISIBLE_LIMIT = 16_000;
const DESCRIPTION_LIMIT = 1024;

/**
 * What a result holds besides the units its description counts: the measurement context (coverage per
 * engine), the series' summary with its comparison, the days of a series without a run (about 40 bytes
 * each), the fence of untrusted text. A fixed allowance, so that the units carry the growth.
 */
const ENVELOPE_BYTES = 16_000;

type Structured = Record<string, any>;

/**
 * The reads whose description declares a unit weight (their `*_SIZE` constant, which the 1-year test holds
 * to the measured weight): the weight, how many units a result holds, and the advice the description
 * must give. Any other read stays within RESULT_LIMIT on every legal call.
 */
const enginesOfItems = (sc: Structured) => (sc.items as Array<{ engines: unknown[] }>).reduce((n, item) => n + item.engines.length, 0);
const DECLARED: Record<
  string,
  {
    weight: number;
    weightOf?: (args: Record<string, unknown>) => number;
    quoted: string;
    units: (sc: Structured) => number;
    advice: RegExp;
  }
> = {
  get_metrics_timeseries: {
    weight: SERIES_SIZE.dayBytes,
    // With segments a day carries its figures for each kind of prompt too: the weight the description quotes for that.
    weightOf: (args) => (args.segments === 'branded' ? SERIES_SIZE.segments.dayBytes : SERIES_SIZE.dayBytes),
    quoted: `A day with a run weighs about ${SERIES_SIZE.dayBytes / 1000} KB (${SERIES_SIZE.segments.dayBytes / 1000} KB with segments)`,
    units: (sc) => (sc.points as Array<{ state: string }>).filter((p) => p.state !== 'no_run').length,
    advice: new RegExp(`ask for ${SERIES_SIZE.window} or less, or walk from/to spans of at most ${SERIES_SIZE.spanDays} days`),
  },
  list_group_prompts: {
    weight: GROUP_PROMPT_SIZE.engineBytes,
    quoted: `A prompt weighs about ${GROUP_PROMPT_SIZE.engineBytes / 1000} KB per engine`,
    units: enginesOfItems,
    advice: new RegExp(`at ${GROUP_PROMPT_SIZE.engines} engines ask for at most ${GROUP_PROMPT_SIZE.limit}`),
  },
  list_runs: {
    weight: RUN_SIZE.engineBytes,
    quoted: `A run weighs about ${RUN_SIZE.engineBytes} bytes per engine`,
    units: enginesOfItems,
    advice: new RegExp(`at ${RUN_SIZE.engines} engines ask for at most ${RUN_SIZE.limit}`),
  },
};

/** The unit weight a declared read's description quotes for the arguments of a call. */
const weightOf = (r: { tool: string; args: Record<string, unknown> }): number => {
  const declared = DECLARED[r.tool];
  return declared ? (declared.weightOf?.(r.args) ?? declared.weight) : 0;
};

let api: LocalApi;
let client: Client;
let list: Tool[];
beforeAll(async () => {
  api = await startTestApi({ PLAN_CEILINGS: JSON.stringify({ growth: 1_000_000 }) });
  client = await connect(api, manifest.keys.workspace);
  list = (await client.listTools()).tools;
});
afterAll(async () => {
  await client?.close();
  await api?.close();
});

const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/**
 * Custom windows of the widest legal span placed around the demo history: ending on its last day (so
 * it covers all of it), starting on its first day (and running past today), and at both ends of the
 * calendar the API accepts (nothing measured there).
 */
function customWindows(firstDay: string, lastDay: string): Array<{ from: string; to: string }> {
  const span = MAX_WINDOW_DAYS - 1;
  return [
    { from: addDays(lastDay, -span), to: lastDay },
    { from: firstDay, to: addDays(firstDay, span) },
    { from: FIRST_DAY, to: addDays(FIRST_DAY, span) },
    { from: addDays(LAST_DAY, -span), to: LAST_DAY },
  ];
}

describe('tools/list', () => {
  test(`every description ≤ ${DESCRIPTION_LIMIT} characters; list ≤ ${LIST_LIMIT} bytes, model-visible part ≤ ${MODEL_VISIBLE_LIMIT}`, async () => {
    const reply = await rpc(api, manifest.keys.workspace, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const full = Buffer.byteLength(reply.text);
    const visible = Buffer.byteLength(
      JSON.stringify(list.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }))),
    );
    const rows = list.map((t) => ({
      tool: t.name,
      description_chars: t.description?.length ?? 0,
      input_schema_bytes: Buffer.byteLength(JSON.stringify(t.inputSchema)),
      output_schema_bytes: Buffer.byteLength(JSON.stringify(t.outputSchema)),
    }));
    console.log(
      `tools/list response: ${full} bytes; model-visible (names, descriptions, input schemas): ${visible} bytes\n${sizeTable(rows)}`,
    );
    for (const r of rows)
      expect({ tool: r.tool, chars: r.description_chars }).toEqual({
        tool: r.tool,
        chars: Math.min(r.description_chars, DESCRIPTION_LIMIT),
      });
    expect(full).toBeLessThanOrEqual(LIST_LIMIT);
    expect(visible).toBeLessThanOrEqual(MODEL_VISIBLE_LIMIT);
  });
});

interface Measured extends SizeRow {
  /** Units of the result, for a read that declares a unit weight. */
  units?: number;
}

const biggest = largestBytes;
const pathParamsOf = (tool: string) => pathParams(reads.find((r) => r.name === tool)?.path ?? '');

describe('result sizes on the demo', () => {
  const rows: Measured[] = [];

  beforeAll(async () => {
    const db = new pg.Client({ connectionString: readerUrl() });
    await db.connect();
    const longest = new Map<string, string[]>();
    try {
      // The longest answers of each analysis (text, then mentions and citations), for get_answer.
      const found = await db.query<{ slug: string; id: string }>(
        `SELECT slug, id FROM (
           SELECT a.slug, x.id, row_number() OVER (PARTITION BY a.id ORDER BY length(x.text)
                    + 200 * ((SELECT count(*) FROM mentions m WHERE m.answer_id = x.id) + (SELECT count(*) FROM citations c WHERE c.answer_id = x.id)) DESC, x.id) AS n
             FROM answers x JOIN analyses a ON a.id = x.analysis_id) t
          WHERE n <= 3`,
      );
      for (const r of found.rows) longest.set(r.slug, [...(longest.get(r.slug) ?? []), r.id]);
    } finally {
      await db.end();
    }
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      if (result.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${JSON.stringify(result.content)}`);
      return result;
    };
    const analyses = ((await call('list_analyses', { limit: 200 })).structuredContent as { items: Array<{ slug: string }> }).items.map(
      (a) => a.slug,
    );
    for (const t of list) {
      const argSets = await toolArgSets(t, {
        analyses,
        windows: customWindows(addDays(manifest.endDate, -129), manifest.endDate),
        ids: async (param, base) => (param === 'answer' ? (longest.get(String(base.analysis)) ?? []) : undefined),
        call,
      });
      for (const args of argSets) {
        const result = await call(t.name, args);
        rows.push({
          tool: t.name,
          args,
          ...resultSizes(result),
          units: DECLARED[t.name]?.units(result.structuredContent as Structured),
        });
      }
    }
  }, 600_000);

  test(`every tool, every extreme of its arguments: text block and structuredContent ≤ ${RESULT_LIMIT} bytes, or within the weight its description declares`, () => {
    expect(rows.length).toBeGreaterThan(500);
    const worst = new Map<string, Measured>();
    for (const r of rows) {
      const w = worst.get(r.tool);
      if (!w || biggest(r) > biggest(w)) worst.set(r.tool, r);
    }
    console.log(
      `${rows.length} calls on the demo; largest result per tool (bytes, and characters for docs/mcp.md):\n${sizeTable(
        [...worst.values()].map((r) => ({
          tool: r.tool,
          text_block: r.text,
          structured_content: r.structured,
          text_chars: r.textChars,
          structured_chars: r.structuredChars,
          arguments: JSON.stringify(r.args),
          declared: DECLARED[r.tool] ? `${weightOf(r)} × ${r.units} + ${ENVELOPE_BYTES}` : '',
        })),
      )}`,
    );
    for (const r of rows) {
      const declared = DECLARED[r.tool];
      const bound = declared ? Math.max(RESULT_LIMIT, weightOf(r) * (r.units ?? 0) + ENVELOPE_BYTES) : RESULT_LIMIT;
      expect({ tool: r.tool, args: r.args, over: biggest(r) > bound }).toEqual({ tool: r.tool, args: r.args, over: false });
    }
  });

  test('a read whose results may go over declares its unit weight and says how to ask for less', () => {
    const over = [...new Set(rows.filter((r) => biggest(r) > RESULT_LIMIT).map((r) => r.tool))];
    expect(over.filter((name) => !DECLARED[name])).toEqual([]);
    for (const [name, declared] of Object.entries(DECLARED)) {
      const description = list.find((t) => t.name === name)?.description ?? '';
      expect({ name, quotes: description.includes(declared.quoted) }).toEqual({ name, quotes: true });
      expect(description).toMatch(new RegExp(`can exceed what an assistant shows whole: .*${declared.advice.source}`));
      // The weight is of a unit the result holds: a call of this read on the demo counted some.
      expect(Math.max(...rows.filter((r) => r.tool === name).map((r) => r.units ?? 0))).toBeGreaterThan(0);
    }
  });

  const defaultCalls = () => rows.filter((r) => Object.keys(r.args).every((k) => k === 'analysis' || pathParamsOf(r.tool).includes(k)));

  test(`every tool with default arguments: text block and structuredContent ≤ ${DEFAULT_CALL_CHARS} characters`, () => {
    const defaults = defaultCalls();
    expect(new Set(defaults.map((r) => r.tool))).toEqual(new Set(list.map((t) => t.name)));
    const worst = new Map<string, Measured>();
    for (const r of defaults) {
      const w = worst.get(r.tool);
      if (!w || largestChars(r) > largestChars(w)) worst.set(r.tool, r);
    }
    console.log(
      `${defaults.length} calls with default arguments on the demo; largest per tool (characters):\n${sizeTable(
        [...worst.values()].map((r) => ({
          tool: r.tool,
          text_block: r.textChars,
          structured_content: r.structuredChars,
          arguments: JSON.stringify(r.args),
        })),
      )}`,
    );
    const over = defaults
      .filter((r) => largestChars(r) > DEFAULT_CALL_CHARS)
      .map((r) => ({ tool: r.tool, args: r.args, chars: largestChars(r) }));
    expect(over).toEqual([]);
  });

  test(`every paged tool has a measured default page, and its default calls stay ${DEFAULT_PAGE_MARGIN_CHARS} characters under ${DEFAULT_CALL_CHARS}`, () => {
    const paged = list.filter((t) => (t.inputSchema.properties as Record<string, unknown> | undefined)?.limit).map((t) => t.name);
    // A paged tool not listed falls back to a small page that nobody measured (TOOL_PAGE_DEFAULT); a
    // whole-list read paged on MCP only (list_prompts) has its own measured page (MCP_SLICES).
    expect(paged.filter((name) => PAGE_DEFAULT_BY_TOOL[name] === undefined && !toolDef(name)?.slice)).toEqual([]);
    const over = defaultCalls()
      .filter((r) => paged.includes(r.tool) && largestChars(r) > DEFAULT_CALL_CHARS - DEFAULT_PAGE_MARGIN_CHARS)
      .map((r) => ({ tool: r.tool, args: r.args, chars: largestChars(r) }));
    expect(over).toEqual([]);
  });
});
