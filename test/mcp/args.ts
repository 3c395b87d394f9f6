import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { UNTRUSTED_KEY } from '#shared/mcp/schema.js';
import { reads } from '#shared/reads/registry.js';
import { isScoped, pathParams, type ReadDef } from '#shared/reads/types.js';

/** Helpers on tools and their arguments, without jest (the MCP bench section uses them too). */

/** The REST path and query of a read for the given arguments (path parameters filled in, the rest as query). */
export function restPath(read: ReadDef, args: Record<string, unknown>): string {
  const inPath = pathParams(read.path);
  const path = read.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(args[name])));
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(args)) if (!inPath.includes(k)) query.set(k, String(v));
  const qs = query.toString();
  return qs ? `${path}?${qs}` : path;
}

/**
 * The read that lists what a path parameter names: for /analyses/{analysis}/runs/{run} it is the read
 * at /analyses/{analysis}/runs. Derived from the table, so reads added later are covered too.
 */
export function listerOf(read: ReadDef, param: string): ReadDef | undefined {
  const prefix = read.path.slice(0, read.path.indexOf(`/{${param}}`));
  return reads.find((r) => r.path === prefix);
}

/** Whether a read takes `window` and accepts `all` (to find ids in the whole history). */
export function takesWindowAll(read: ReadDef): boolean {
  const schema = z.toJSONSchema(read.input, { io: 'input' }) as { properties?: { window?: { enum?: unknown[] } } };
  return schema.properties?.window?.enum?.includes('all') ?? false;
}

type Args = Record<string, unknown>;
interface PropertySchema {
  enum?: unknown[];
  default?: unknown;
  maximum?: number;
  minimum?: number;
}

export interface ArgSetOptions {
  /** Analyses to call scoped tools on. */
  analyses: string[];
  /** Custom windows (from/to) to try on tools that take them. */
  windows: Array<{ from: string; to: string }>;
  /** Values of a path parameter other than analysis, when the test knows better ones than its lister gives. */
  ids?: (param: string, base: Args) => Promise<string[] | undefined>;
  call: (name: string, args: Args) => Promise<CallToolResult>;
}

/**
 * The extremes of a tool's legal arguments, read from its advertised inputSchema: every window (named,
 * default, the custom ones given), each with every value of any other choice (segments), the largest
 * limit and both ends of offset, and for each path
 * parameter every id its lister returns (window all, largest page). Nothing here names a tool.
 */
export async function toolArgSets(tool: Tool, opts: ArgSetOptions): Promise<Args[]> {
  const props = (tool.inputSchema.properties ?? {}) as Record<string, PropertySchema>;
  const read = reads.find((r) => r.name === tool.name);
  if (!read) throw new Error(`${tool.name}: not in the read table`);
  const scoped = isScoped(read);
  let sets: Args[] = scoped ? opts.analyses.map((analysis) => ({ analysis })) : [{}];
  for (const param of pathParams(read.path).filter((p) => p !== 'analysis')) {
    const next: Args[] = [];
    for (const base of sets) {
      let ids = await opts.ids?.(param, base);
      if (!ids) {
        const lister = listerOf(read, param);
        if (!lister) throw new Error(`${read.name}: no read lists {${param}}`);
        const listArgs: Args = {};
        for (const p of pathParams(lister.path)) listArgs[p] = base[p];
        const lp = z.toJSONSchema(lister.input, { io: 'input' }) as { properties?: Record<string, PropertySchema> };
        if (lp.properties?.window?.enum?.includes('all')) listArgs.window = 'all';
        if (lp.properties?.limit?.maximum !== undefined) listArgs.limit = lp.properties.limit.maximum;
        const listed = (await opts.call(lister.name, listArgs)).structuredContent as { items?: Array<{ id?: string }> };
        ids = (listed.items ?? []).map((i) => i.id).filter((id): id is string => typeof id === 'string');
      }
      for (const id of ids) next.push({ ...base, [param]: id });
    }
    sets = next;
  }
  let variants: Args[] = [{}];
  if (props.window) {
    variants.push(...(props.window.enum ?? []).map((window) => ({ window })));
    if (props.from && props.to) variants.push(...opts.windows);
  }
  // Every other choice (segments), each value besides the default with every window.
  for (const [name, prop] of Object.entries(props))
    if (name !== 'window' && prop.enum)
      variants = variants.flatMap((v) => [v, ...(prop.enum ?? []).filter((e) => e !== prop.default).map((e) => ({ ...v, [name]: e }))]);
  const pages: Args[] = [{}];
  if (props.limit?.maximum !== undefined) {
    pages.push({ limit: props.limit.maximum });
    if (props.offset?.maximum !== undefined) pages.push({ limit: props.limit.maximum, offset: props.offset.maximum });
  }
  return sets.flatMap((base) => variants.flatMap((v) => pages.map((p) => ({ ...base, ...v, ...p }))));
}

/** What a host may forward to the model: the text block, or JSON.stringify(structuredContent). */
export interface ResultSizes {
  /** Bytes (UTF-8) of the text block, and of JSON.stringify(structuredContent). */
  text: number;
  structured: number;
  /** The same two in characters (UTF-16 code units), as a host counts them when it cuts or sets aside a result. */
  textChars: number;
  structuredChars: number;
}

export interface SizeRow extends ResultSizes {
  tool: string;
  args: Args;
}

export function resultSizes(result: CallToolResult): ResultSizes {
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  const structured = JSON.stringify(result.structuredContent ?? null);
  return {
    text: Buffer.byteLength(text),
    structured: Buffer.byteLength(structured),
    textChars: text.length,
    structuredChars: structured.length,
  };
}

/** The larger of the two, in bytes and in characters. */
export const largestBytes = (s: Pick<ResultSizes, 'text' | 'structured'>): number => Math.max(s.text, s.structured);
export const largestChars = (s: Pick<ResultSizes, 'textChars' | 'structuredChars'>): number => Math.max(s.textChars, s.structuredChars);

/** A markdown table, for sizes printed by the tests (and copied into docs/mcp.md). */
export function sizeTable(rows: Array<Record<string, string | number>>): string {
  const cols = Object.keys(rows[0] ?? {});
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(cols), line(cols.map(() => '---')), ...rows.map((r) => line(cols.map((c) => String(r[c]))))].join('\n');
}

/** structuredContent with every {untrusted_third_party_content: s} replaced by s: the REST body again. */
export function unwrapUntrusted(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(unwrapUntrusted);
  if (typeof x !== 'object' || x === null) return x;
  const keys = Object.keys(x);
  if (keys.length === 1 && keys[0] === UNTRUSTED_KEY) return (x as Record<string, unknown>)[UNTRUSTED_KEY];
  return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, unwrapUntrusted(v)]));
}
