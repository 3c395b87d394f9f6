import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { toolDef, toolPageDefault, tools } from '#shared/mcp/tools.js';
import { MAX_OFFSET } from '#shared/reads/contracts/common.js';
import { standalone } from '#shared/reads/contracts/json-schema.js';
import { reads } from '#shared/reads/registry.js';
import { isScoped, pathParams, type ReadDef } from '#shared/reads/types.js';
import type { LocalApi } from '../../local/stack.js';
import { awayFromMinuteEdge, call, manifest, startTestApi } from '../support/api.js';
import { unwrapUntrusted } from './args.js';
import {
  connect,
  listerOf,
  parseToolError,
  type RateLimit,
  restPath,
  type ToolErrorBody,
  takesWindowAll,
  withoutRateLimit,
} from './support.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;
/** Not strict: x-untrusted is an annotation keyword of ours. */
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const key = () => manifest.keys.workspace;

let api: LocalApi;
let client: Client;
beforeAll(async () => {
  api = await startTestApi();
  client = await connect(api, key());
});
afterAll(async () => {
  await client?.close();
  await api?.close();
});

const tool = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

/** The error body a failing tool returns (the REST body of the same refusal), after its plain first line. */
function toolError(result: CallToolResult): ToolErrorBody {
  const { error, rate_limit } = parseToolError(result);
  expect(error.request_id).toMatch(UUID);
  expect(rate_limit?.per_minute).toBeGreaterThan(0);
  return error;
}

/**
 * Fields that change between two calls on purpose: the budget left, and the throttled last-use stamp.
 * Every tool result but get_me's carries the budget besides the REST body; get_me's body has it already.
 */
function stable(read: ReadDef, body: any): unknown {
  if (read.name !== 'get_me') return withoutRateLimit(body);
  const {
    rate_limit: { remaining: _r, reset_after_seconds: _s, ...limit },
    key: { last_used_at: _l, ...k },
    ...rest
  } = body;
  return { ...rest, key: k, rate_limit: limit };
}

/** Arguments valid for a read on the demo: the collected analysis, and ids got first from the read that lists them. */
async function argsFor(read: ReadDef): Promise<Record<string, unknown>> {
  const args: Record<string, unknown> = {};
  if (isScoped(read)) args.analysis = manifest.analyses.collected;
  for (const param of pathParams(read.path)) {
    if (param === 'analysis') continue;
    const lister = listerOf(read, param);
    if (!lister) throw new Error(`${read.name}: no read lists {${param}}; teach argsFor where to find one`);
    const listArgs: Record<string, unknown> = { ...args };
    for (const p of pathParams(lister.path)) listArgs[p] = args[p];
    if (takesWindowAll(lister)) listArgs.window = 'all';
    const result = await tool(lister.name, listArgs);
    const first = (result.structuredContent as { items?: Array<{ id?: string }> }).items?.[0]?.id;
    if (!first) throw new Error(`${lister.name} gave no id for {${param}}`);
    args[param] = first;
  }
  return args;
}

type Schema = Record<string, any>;

describe('tools/list: one tool per read, from the read table', () => {
  test('names, input schemas as the contract states them, read-only annotations, no listChanged', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(reads.map((r) => r.name).sort());
    expect(client.getServerCapabilities()).toEqual({ tools: {}, prompts: {}, resources: {}, completions: {} });
    for (const read of reads) {
      const t = tools.find((x) => x.name === read.name)!;
      const contract = standalone(read.input, 'input') as Schema;
      const advertised = t.inputSchema as Schema;
      // The same parameters, requirements, types, bounds, defaults and enums as REST validates with;
      // only regex spellings of a stated format are left out.
      expect(advertised.required ?? []).toEqual(contract.required ?? []);
      expect(advertised.additionalProperties).toBe(false);
      // A whole-list read takes limit and offset on MCP only (the next test).
      const mcpOnly = toolDef(read.name)?.slice ? ['limit', 'offset'] : [];
      expect(Object.keys(advertised.properties)).toEqual([...Object.keys(contract.properties), ...mcpOnly]);
      for (const [name, prop] of Object.entries(contract.properties as Record<string, Schema>)) {
        const { pattern, ...rest } = prop;
        if (pattern !== undefined) expect(prop.format).toBeDefined();
        // Page defaults are the tool's own (next test); everything else as REST.
        const { default: _d, ...same } = advertised.properties[name];
        const { default: _r, ...expected } = rest;
        expect({ name, ...same }).toEqual({ name, ...expected });
        if (name !== 'limit') expect(advertised.properties[name].default).toEqual(prop.default);
      }
      expect(t.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: false, destructiveHint: false });
      expect(t.description).toContain(read.description);
      expect(t.title).toBe(read.summary);
    }
  });

  test('paged tools take the page each one measured (list_group_prompts 2) with the same maximum as REST; list_prompts pages on MCP only', async () => {
    const { tools: list } = await client.listTools();
    const paged = list.filter((t) => (t.inputSchema.properties as Schema)?.limit);
    expect(paged.map((t) => t.name).sort()).toEqual([
      'list_analyses',
      'list_answers',
      'list_group_prompts',
      'list_prompts',
      'list_runs',
      'list_sources',
    ]);
    for (const t of paged.filter((x) => x.name !== 'list_prompts')) {
      const rest = (standalone(reads.find((r) => r.name === t.name)!.input, 'input') as Schema).properties.limit;
      expect((t.inputSchema.properties as Schema).limit).toEqual({ ...rest, default: Math.min(rest.default, toolPageDefault(t.name)) });
    }
    expect(toolPageDefault('list_group_prompts')).toBe(2);
    const analysis = manifest.analyses.collected;
    const groups = (await tool('list_groups', { analysis })).structuredContent as { items: Array<{ id: string; prompts: number }> };
    const group = groups.items.reduce((a, b) => (b.prompts > a.prompts ? b : a)).id;
    const prompts = (await tool('list_group_prompts', { analysis, group })).structuredContent as {
      items: unknown[];
      truncated: boolean;
      total: number;
    };
    expect(prompts.total).toBeGreaterThan(2);
    expect({ items: prompts.items.length, truncated: prompts.truncated }).toEqual({ items: 2, truncated: true });
  });

  test('list_prompts on MCP: pages of limit from offset, truncated while items remain, total counts all; REST returns all', async () => {
    const analysis = manifest.analyses.collected;
    const rest = (await call(api, `/analyses/${analysis}/prompts`, key())).body as { items: Array<{ id: string }>; total: number };
    expect(rest.items).toHaveLength(rest.total);
    type Page = { items: Array<{ id: string }>; truncated: boolean; total: number; next_cursor: null };
    const whole = (await tool('list_prompts', { analysis })).structuredContent as Page;
    expect(whole.items.map((p) => p.id)).toEqual(rest.items.slice(0, 100).map((p) => p.id));
    expect(whole.truncated).toBe(rest.total > 100);
    const seen: string[] = [];
    for (let offset = 0; ; offset += 2) {
      const page = (await tool('list_prompts', { analysis, limit: 2, offset })).structuredContent as Page;
      expect({ total: page.total, next_cursor: page.next_cursor }).toEqual({ total: rest.total, next_cursor: null });
      seen.push(...page.items.map((p) => p.id));
      expect(page.truncated).toBe(offset + 2 < rest.total);
      if (!page.truncated) break;
    }
    expect(seen).toEqual(rest.items.map((p) => p.id));
    for (const [args, param] of [
      [{ limit: 0 }, 'limit'],
      [{ limit: 251 }, 'limit'],
      [{ limit: '5' }, 'limit'],
      [{ offset: -1 }, 'offset'],
      [{ offset: 1.5 }, 'offset'],
      [{ offset: MAX_OFFSET + 1 }, 'offset'],
      [{ offset: 2 ** 53 + 2 }, 'offset'],
      [{ offset: 1e20 }, 'offset'],
      [{ page: 2 }, 'page'],
    ] as const) {
      expect(toolError(await tool('list_prompts', { analysis, ...args }))).toMatchObject({ code: 'invalid_request', param });
    }
    // The largest offset is served: past every prompt, an empty last page.
    const far = (await tool('list_prompts', { analysis, offset: MAX_OFFSET })).structuredContent as Page;
    expect({ items: far.items, truncated: far.truncated, total: far.total }).toEqual({ items: [], truncated: false, total: rest.total });
  });

  test('output schemas are self-contained: every $ref points into the tool’s own $defs', async () => {
    const { tools } = await client.listTools();
    for (const t of tools) {
      const text = JSON.stringify(t.outputSchema);
      const defs = Object.keys((t.outputSchema as Schema).$defs ?? {});
      for (const [, name] of text.matchAll(/"\$ref":"#\/\$defs\/([^"]+)"/g)) expect(defs).toContain(name);
      expect(text).not.toMatch(/"\$ref":"(?!#\/\$defs\/)/);
    }
  });
});

describe('each description tells the assistant what it needs', () => {
  /** What the result of a tool can carry, read off its advertised outputSchema. */
  const carries = (t: { outputSchema?: unknown }) => {
    const text = JSON.stringify(t.outputSchema);
    return {
      rates: /"\$defs":.*"(rate_value|day_rate)":/.test(text),
      sentiment: text.includes('"sentiment"'),
      position: text.includes('"average_position"') || text.includes('"position"'),
      nulls: text.includes('"null"'),
    };
  };

  test('when to use it; the units of the figures it carries; what null means, wherever a field can be null', async () => {
    const { tools: list } = await client.listTools();
    for (const t of list) {
      const d = t.description ?? '';
      const c = carries(t);
      const says = (fact: string, re: RegExp, relevant = true) => ({ tool: t.name, fact, said: relevant ? re.test(d) : true });
      const facts = [
        says('when to use it', /\b([Uu]se it|Start here)\b/),
        says('rates 0..1', /\b[Rr]ates 0\.\.1\b/, c.rates),
        says('sentiment -1..1', /\bsentiment -1\.\.1\b/, c.sentiment),
        says('position: 1 = first', /position.*\b1 = (named )?first\b/, c.position),
        // "null" then what it means: "null: none", "null = nothing to measure", "null when/if/until/on ...", "(null ...".
        says('what null means', /\bnull( ?[:=]| (when|if|until|on))|\(null\b/, c.nulls),
      ];
      for (const f of facts) expect(f).toEqual({ ...f, said: true });
    }
  });

  test('a figure tool says 0 is a measured zero and null nothing to measure; a tool whose result can outgrow an assistant says how to ask for less', async () => {
    const { tools: list } = await client.listTools();
    for (const t of list.filter((x) => reads.find((r) => r.name === x.name)?.family === 'figures')) {
      expect({ tool: t.name, said: /0 = measured zero; null = nothing to measure/.test(t.description ?? '') }).toEqual({
        tool: t.name,
        said: true,
      });
    }
    // Which tools these are, and that what they advise fits, is measured on a year of daily runs
    // (test/reliability/mcp-sizes.long-history.ts); here, that the advice names a weight and what to ask for.
    const advising = list.filter((t) => /can exceed what an assistant shows whole/.test(t.description ?? ''));
    expect(advising.map((t) => t.name).sort()).toEqual(['get_metrics_timeseries', 'list_group_prompts', 'list_runs']);
    for (const t of advising) expect(t.description).toMatch(/weighs about [\d.]+ (KB|bytes).*: (at \d+ engines )?ask for (at most )?\w+/);
  });
});

describe('tools/call: the same data as REST', () => {
  test.each(reads.map((r) => [r.name, r] as const))(
    '%s: structuredContent is the REST body, untrusted strings wrapped',
    async (_name, read) => {
      const args = await argsFor(read);
      const result = await tool(read.name, args);
      expect(result.isError).toBeFalsy();
      // The tool's own page default (10) where REST's is larger, stated to REST explicitly.
      const rest = await call(api, restPath(read, { ...tools().get(read.name)!.defaults, ...args }), key());
      expect(rest.status).toBe(200);
      expect(stable(read, result.structuredContent)).toEqual(stable(read, tools().get(read.name)!.structured(rest.body)));
      expect(stable(read, unwrapUntrusted(result.structuredContent))).toEqual(stable(read, rest.body));
      // It validates against the advertised outputSchema (the SDK client checks it too).
      const { tools: list } = await client.listTools();
      const validate = ajv.compile(list.find((t) => t.name === read.name)!.outputSchema!);
      expect(validate(result.structuredContent) ? 'valid' : ajv.errorsText(validate.errors)).toBe('valid');
      // The text block carries the same JSON, for clients that only read text (fenced when third-party text is inside).
      const text = result.content[0];
      if (text?.type !== 'text') throw new Error('expected a text block');
      const json = tools().get(read.name)!.untrusted ? text.text.split('\n')[2]! : text.text;
      expect(JSON.parse(json)).toEqual(result.structuredContent);
      // The budget after the call, where each host looks: structuredContent (hence the text) and _meta.
      const meta = result._meta as { rate_limit: RateLimit };
      expect(meta.rate_limit.per_minute).toBe(Number(rest.headers.get('x-ratelimit-limit')));
      expect(meta.rate_limit.remaining).toBeLessThan(meta.rate_limit.per_minute);
      expect(meta.rate_limit.reset_after_seconds).toBeGreaterThanOrEqual(0);
      expect((result.structuredContent as { rate_limit: RateLimit }).rate_limit).toEqual(meta.rate_limit);
    },
  );

  test('get_me in MCP reports the same key, and a budget one call ahead of REST', async () => {
    // Both calls in one budget minute, or REST reads a fresh minute's count.
    await awayFromMinuteEdge(10);
    const viaTool = (await tool('get_me')).structuredContent as any;
    const viaRest = (await call(api, '/me', key())).body;
    expect(viaTool.key.id).toBe(viaRest.key.id);
    expect(viaRest.rate_limit.remaining).toBe(viaTool.rate_limit.remaining - 1);
  });
});

describe('tool failures: isError with the REST error body, never an internal message', () => {
  test('an analysis outside the reach → analysis_not_found', async () => {
    const read = reads.find((r) => r.path === '/analyses/{analysis}')!;
    const err = toolError(await tool(read.name, { analysis: manifest.analyses.other_workspace }));
    expect(err.code).toBe('analysis_not_found');
    const rest = await call(api, `/analyses/${manifest.analyses.other_workspace}`, key());
    expect(err.message).toBe(rest.body.error.message);
  });

  test.each([
    ['a string for a number', { limit: '5' }, 'limit'],
    ['out of bounds', { limit: 0 }, 'limit'],
    ['a fraction', { limit: 1.5 }, 'limit'],
    ['an unknown argument', { foo: 1 }, 'foo'],
    ['a number for a cursor', { cursor: 12 }, 'cursor'],
  ])('list_analyses with %s → invalid_request naming the argument', async (_label, args, param) => {
    const err = toolError(await tool('list_analyses', args));
    expect(err).toMatchObject({ code: 'invalid_request', param });
  });

  test('a garbage cursor → invalid_request on cursor; a cursor of another key → cursor_expired', async () => {
    expect(toolError(await tool('list_analyses', { cursor: 'garbage' }))).toMatchObject({ code: 'invalid_request', param: 'cursor' });
    const first = (await tool('list_analyses', { limit: 1 })).structuredContent as { next_cursor: string };
    const other = await connect(api, manifest.keys.brand);
    try {
      const result = (await other.callTool({ name: 'list_analyses', arguments: { cursor: first.next_cursor } })) as CallToolResult;
      expect(toolError(result).code).toBe('cursor_expired');
    } finally {
      await other.close();
    }
  });

  test('a missing path argument → invalid_request naming it', async () => {
    const read = reads.find((r) => r.path === '/analyses/{analysis}')!;
    expect(toolError(await tool(read.name, {}))).toMatchObject({ code: 'invalid_request', param: 'analysis' });
  });

  test('an unknown id inside the analysis → not_found', async () => {
    const read = reads.find((r) => pathParams(r.path).length === 2);
    if (!read) return; // only once a read with a second path parameter is in the table
    const [, second] = pathParams(read.path) as [string, string];
    const err = toolError(
      await tool(read.name, { analysis: manifest.analyses.collected, [second]: '00000000-0000-4000-8000-000000000000' }),
    );
    expect(err.code).toBe('not_found');
  });

  test('an unknown tool is a JSON-RPC error (-32602), not a result', async () => {
    await expect(tool('drop_tables')).rejects.toThrow(McpError);
    await expect(tool('drop_tables')).rejects.toMatchObject({ code: -32602 });
  });
});
