import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { standalone } from '../../shared/contracts/json-schema.js';
import type { LocalApi } from '../../shared/local/stack.js';
import { reads } from '../../shared/reads/registry.js';
import { isScoped, pathParams, type ReadDef } from '../../shared/reads/types.js';
import { HOSTILE_TEXTS } from '../../shared/store/demo.js';
import { call, manifest, startTestApi } from '../support/api.js';
import { connect, listerOf, restPath, takesWindowAll } from './support.js';

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

/** The error body a failing tool returns as text (the REST body of the same refusal). */
function toolError(result: CallToolResult): { code: string; message: string; request_id: string; param?: string } {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const first = result.content[0];
  if (first?.type !== 'text') throw new Error('expected a text block');
  const body = JSON.parse(first.text) as { error: { code: string; message: string; request_id: string; param?: string } };
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.request_id).toMatch(UUID);
  return body.error;
}

/** Fields that change between two calls on purpose: the budget left, and the throttled last-use stamp. */
function stable(read: ReadDef, body: any): unknown {
  if (read.name !== 'get_me') return body;
  const { rate_limit: { remaining: _r, reset_after_seconds: _s, ...limit }, key: { last_used_at: _l, ...k }, ...rest } = body;
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

describe('tools/list: one tool per read, from the read table', () => {
  test('names, schemas and read-only annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(reads.map((r) => r.name).sort());
    for (const read of reads) {
      const t = tools.find((x) => x.name === read.name)!;
      expect(t.inputSchema).toEqual(standalone(read.input, 'input'));
      expect(t.outputSchema).toEqual(standalone(read.output, 'output'));
      expect(t.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: false, destructiveHint: false });
      expect(t.description).toContain(read.description);
      expect(t.description).toContain(`/api/v1${read.path}`);
    }
  });
});

describe('tools/call: the same data as REST', () => {
  test.each(reads.map((r) => [r.name, r] as const))('%s: structuredContent equals the REST body', async (_name, read) => {
    const args = await argsFor(read);
    const result = await tool(read.name, args);
    expect(result.isError).toBeFalsy();
    const rest = await call(api, restPath(read, args), key());
    expect(rest.status).toBe(200);
    expect(stable(read, result.structuredContent)).toEqual(stable(read, rest.body));
    // The text block carries the same JSON, for clients that only read text (fenced when third-party text is inside).
    const text = result.content[0];
    expect(text?.type).toBe('text');
    const meta = result._meta as { rate_limit: { limit: number; remaining: number; reset_after_seconds: number } };
    expect(meta.rate_limit.limit).toBe(Number(rest.headers.get('x-ratelimit-limit')));
    expect(meta.rate_limit.remaining).toBeGreaterThanOrEqual(0);
    expect(meta.rate_limit.reset_after_seconds).toBeGreaterThanOrEqual(0);
  });

  test('get_me in MCP reports the same key, and a budget one call ahead of REST', async () => {
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
    const err = toolError(await tool(read.name, { analysis: manifest.analyses.collected, [second]: '00000000-0000-4000-8000-000000000000' }));
    expect(err.code).toBe('not_found');
  });

  test('an unknown tool is a JSON-RPC error (-32602), not a result', async () => {
    await expect(tool('drop_tables')).rejects.toThrow(McpError);
    await expect(tool('drop_tables')).rejects.toMatchObject({ code: -32602 });
  });
});

describe('untrusted answer text', () => {
  const read = reads.find((r) => r.name === 'get_answer');
  (read ? test : test.skip)('get_answer text is fenced and labelled; structuredContent is the REST body', async () => {
    for (const [i, id] of manifest.hostileAnswerIds.entries()) {
      const args = { analysis: manifest.analyses.collected, answer: id };
      const result = await tool('get_answer', args);
      const rest = await call(api, restPath(read!, args), key());
      expect(result.structuredContent).toEqual(rest.body);
      expect((result.structuredContent as { text: string }).text).toBe(HOSTILE_TEXTS[i]);
      const text = (result.content[0] as { text: string }).text;
      const lines = text.split('\n');
      // Label, opening marker, the JSON on one line, closing marker: nothing inside can add a line.
      expect(lines).toHaveLength(4);
      expect(lines[0]).toMatch(/untrusted/i);
      expect(lines[1]).toBe('<untrusted-third-party-content>');
      expect(lines[3]).toBe('</untrusted-third-party-content>');
      expect(lines[2]).not.toMatch(/[<>]/);
      expect(JSON.parse(lines[2]!)).toEqual(rest.body);
    }
  });
});
