import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { FIRST_DAY, LAST_DAY, MAX_WINDOW_DAYS } from '#shared/reads/windows.js';
import type { LocalApi } from '../harness/stack.js';
import { manifest, readerUrl, startTestApi } from '../support/api.js';
import { resultSizes, type SizeRow, sizeTable, toolArgSets } from './args.js';
import { connect, rpc } from './support.js';

/**
 * Issue 14 point 2: what a host forwards to the model stays within what it accepts. Claude Code refuses
 * a tool result over 25,000 tokens, JSON runs about 3 bytes a token, and a host forwards either the text
 * block or JSON.stringify(structuredContent): each must be ≤ 75,000 bytes for every legal call on the
 * demo. Point 3: the tool list itself, in full and in the part a model sees.
 */
const RESULT_LIMIT = 75_000;
const LIST_LIMIT = 64_000;
const MODEL_VISIBLE_LIMIT = 16_000;
const DESCRIPTION_LIMIT = 1024;

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

describe('result sizes on the demo', () => {
  test(`every tool, every extreme of its arguments: text block and structuredContent ≤ ${RESULT_LIMIT} bytes`, async () => {
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
    const rows: SizeRow[] = [];
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      if (result.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${JSON.stringify(result.content)}`);
      return result;
    };
    const analyses = ((await call('list_analyses', { limit: 200 })).structuredContent as { items: Array<{ slug: string }> }).items.map(
      (a) => a.slug,
    );
    let calls = 0;
    for (const t of list) {
      const argSets = await toolArgSets(t, {
        analyses,
        windows: customWindows(addDays(manifest.endDate, -129), manifest.endDate),
        ids: async (param, base) => (param === 'answer' ? (longest.get(String(base.analysis)) ?? []) : undefined),
        call,
      });
      for (const args of argSets) {
        const result = await call(t.name, args);
        calls += 1;
        rows.push({ tool: t.name, args, ...resultSizes(result) });
      }
    }
    const worst = new Map<string, SizeRow>();
    for (const r of rows) {
      const w = worst.get(r.tool);
      if (!w || Math.max(r.text, r.structured) > Math.max(w.text, w.structured)) worst.set(r.tool, r);
    }
    console.log(
      `${calls} calls on the demo; largest result per tool (bytes):\n${sizeTable(
        [...worst.values()].map((r) => ({
          tool: r.tool,
          text_block: r.text,
          structured_content: r.structured,
          arguments: JSON.stringify(r.args),
        })),
      )}`,
    );
    for (const r of rows)
      expect({ tool: r.tool, args: r.args, over: Math.max(r.text, r.structured) > RESULT_LIMIT }).toEqual({
        tool: r.tool,
        args: r.args,
        over: false,
      });
  }, 600_000);
});
