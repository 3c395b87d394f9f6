import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from '@jest/globals';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { LocalApi } from '../../local/stack.js';
import { connect } from '../mcp/support.js';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** The API's address as the host pages write it (the reader fills in the host); a test puts its own API's in its place. */
export const DOCUMENTED_BASE_URL = 'https://<your-api>/api/v1';

/**
 * The first fenced block of a docs page that follows the given heading and is in the given language: the
 * host configuration the page tells a reader to copy, so the setup under test is the documented one.
 */
export function docsBlock(page: string, heading: string, lang: string): string {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const at = text.search(new RegExp(`^#{2,6} ${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'm'));
  if (at < 0) throw new Error(`${page}: no heading "${heading}"`);
  const block = new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(text.slice(at));
  if (!block?.[1]) throw new Error(`${page}: no \`\`\`${lang} block after "${heading}"`);
  return block[1];
}

/** The analysis the host pages name in their examples of a prompt's command (the demo's). */
export const PAGE_ANALYSIS = 'acme-core';

/**
 * The command a host page gives for one of the server's prompts (the line of its "Prompts" block that
 * starts with `start`), with the page's example analysis replaced by the one given.
 */
export function promptCommandFrom(page: string, start: string, args: Record<string, string>): string {
  const line = docsBlock(page, 'Prompts', 'text')
    .split('\n')
    .find((l) => l.startsWith(start));
  if (!line) throw new Error(`${page}: no ${start.trim()} command under "Prompts"`);
  return line.split(PAGE_ANALYSIS).join(args.analysis ?? '');
}

/** The documented configuration, aimed at this test's API instead of the default local address. */
export function aimedAt(block: string, api: LocalApi): string {
  if (!block.includes(DOCUMENTED_BASE_URL)) throw new Error(`the documented configuration does not name ${DOCUMENTED_BASE_URL}: ${block}`);
  return block.split(DOCUMENTED_BASE_URL).join(api.baseUrl);
}

/**
 * A result's JSON as the model reads it: the whole text, or, for a result fenced as third-party content
 * (by the API, or by the host around it), its one line of JSON.
 */
export function resultJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    const line = text.split('\n').find((l) => l.startsWith('{'));
    if (line === undefined) throw new Error(`no JSON in the result the model received: ${text.slice(0, 500)}`);
    return JSON.parse(line);
  }
}

/** A tool call made straight to the API (no host in between): what a host should pass on. */
export async function direct(api: LocalApi, key: string, tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const client = await connect(api, key);
  try {
    return (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
  } finally {
    await client.close();
  }
}

/** The prompts the API lists (MCP prompts/list), by name: what a host can offer its user as commands. */
export async function listedPrompts(api: LocalApi, key: string): Promise<string[]> {
  const client = await connect(api, key);
  try {
    if (!client.getServerCapabilities()?.prompts) return [];
    return (await client.listPrompts()).prompts.map((p) => p.name);
  } finally {
    await client.close();
  }
}

/** The text of each text message of a prompt got straight from the API (prompts/get): what a host should pass on. */
export async function promptTexts(api: LocalApi, key: string, name: string, args: Record<string, string>): Promise<string[]> {
  const client = await connect(api, key);
  try {
    const { messages } = await client.getPrompt({ name, arguments: args });
    return messages.flatMap((m) => (m.content.type === 'text' ? [m.content.text] : []));
  } finally {
    await client.close();
  }
}

/** The text of a resource read straight from the API (resources/read): what a host should pass on. */
export async function resourceText(api: LocalApi, key: string, uri: string): Promise<string> {
  const client = await connect(api, key);
  try {
    const { contents } = await client.readResource({ uri });
    return contents.map((c) => ('text' in c ? c.text : '')).join('');
  } finally {
    await client.close();
  }
}

/**
 * list_group_prompts with default arguments (only the required analysis and group) on the demo, at its
 * largest: every analysis with each of its groups and `none`, measured straight on the API.
 */
export async function largestDefaultGroupPrompts(api: LocalApi, key: string): Promise<{ args: Record<string, string>; chars: number }> {
  const client = await connect(api, key);
  try {
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult & { structuredContent?: any };
    const analyses = (await call('list_analyses', { limit: 200 })).structuredContent.items as Array<{ slug: string }>;
    let best = { args: {} as Record<string, string>, chars: -1 };
    for (const { slug } of analyses) {
      const listed = await call('list_groups', { analysis: slug });
      if (listed.isError) continue;
      const groups = new Set([...((listed.structuredContent?.items ?? []) as Array<{ id: string }>).map((g) => g.id), 'none']);
      for (const group of groups) {
        const result = await call('list_group_prompts', { analysis: slug, group });
        if (result.isError) continue;
        const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
        const chars = Math.max(text.length, JSON.stringify(result.structuredContent).length);
        if (chars > best.chars) best = { args: { analysis: slug, group }, chars };
      }
    }
    if (best.chars < 0) throw new Error('list_group_prompts answered no call on the demo');
    return best;
  } finally {
    await client.close();
  }
}

/** A body without its budget, to compare the same read made at two moments. */
export function withoutBudget(body: Record<string, unknown>): Record<string, unknown> {
  const { rate_limit: _omitted, ...rest } = body;
  return rest;
}

/** The budget a success result carries (docs/mcp.md): the ceiling, the calls left this minute, seconds to the reset. */
export function expectBudget(body: any): void {
  expect(body.rate_limit).toEqual({
    per_minute: expect.any(Number),
    remaining: expect.any(Number),
    reset_after_seconds: expect.any(Number),
  });
  expect(body.rate_limit.remaining).toBeLessThanOrEqual(body.rate_limit.per_minute);
}

/**
 * The first line of a refused call, as the model reads it: `Error <code>: <message>`, ` Param: <param>.`
 * when a parameter is named, ` Retry in <N> seconds.` on rate_limited, then the request id.
 */
export function expectErrorFirstLine(text: string, code: string, opts: { param?: string; retry?: boolean } = {}): void {
  const first = text.split('\n')[0] ?? '';
  expect(first).toMatch(new RegExp(`^Error ${code}: `));
  if (opts.param) expect(first).toContain(` Param: ${opts.param}.`);
  if (opts.retry) expect(first).toMatch(/ Retry in \d+ seconds?\./);
  expect(first).toMatch(/ Request id: [0-9a-f-]{36}\.$/);
}

/** The JSON error body of a refused call (the line after the first, or the whole text before that line existed). */
export function errorBody(text: string): any {
  const line = text.split('\n').find((l) => l.startsWith('{"error"'));
  if (line === undefined) throw new Error(`no JSON error body in what the model received: ${text.slice(0, 500)}`);
  return JSON.parse(line);
}
