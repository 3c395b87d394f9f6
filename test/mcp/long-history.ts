import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { reads } from '#shared/reads/registry.js';
import { isScoped, pathParams } from '#shared/reads/types.js';
import type { LargeManifest } from '../fixtures/large-dataset.js';
import { listerOf, resultSizes } from './args.js';

/**
 * Issue 14 point 2 on a long history (test/fixtures/large-dataset.ts), without jest: what every tool gives with
 * its default arguments, and what its widest legal calls give. Used by the reliability battery's
 * test/reliability/mcp-sizes.long-history.ts (in CI) and by `npm run bench -- mcp`.
 */

type Args = Record<string, unknown>;
export type CallTool = (name: string, args: Args) => Promise<CallToolResult>;

export interface Sized {
  tool: string;
  args: Args;
  /** Bytes (UTF-8) of the text block, and of JSON.stringify(structuredContent). */
  text: number;
  structured: number;
}

export const largest = (s: Pick<Sized, 'text' | 'structured'>): number => Math.max(s.text, s.structured);

export interface LongHistorySizes {
  /** Every call with default arguments: required path parameters take every value their lister gives. */
  defaults: Sized[];
  /** Per tool, its widest legal page and window=all, one at a time (on its last default call's arguments). */
  extremes: Sized[];
}

/**
 * Every tool with default arguments on the dataset of `m`: the analysis, then for each other path
 * parameter every value its lister gives (every group and none; the latest run and the oldest listed),
 * except answers, where the longest one (`longestAnswer`) stands for all. Then the extremes.
 */
export async function longHistorySizes(
  call: CallTool,
  tools: readonly Tool[],
  m: LargeManifest,
  longestAnswer: string,
): Promise<LongHistorySizes> {
  const defaults: Sized[] = [];
  const extremes: Sized[] = [];
  const sized = async (tool: string, args: Args): Promise<Sized> => ({ tool, args, ...resultSizes(await call(tool, args)) });
  for (const read of reads) {
    const base: Args = isScoped(read) ? { analysis: m.analysisSlug } : {};
    let sets = [base];
    for (const param of pathParams(read.path).filter((p) => p !== 'analysis')) {
      let ids: string[];
      if (param === 'answer') ids = [longestAnswer];
      else {
        const lister = listerOf(read, param);
        if (!lister) throw new Error(`${read.name}: no read lists {${param}}`);
        const items = ((await call(lister.name, { ...base })).structuredContent as { items: Array<{ id: string }> }).items;
        ids = param === 'run' ? ['latest', items.at(-1)!.id] : items.map((i) => i.id);
      }
      sets = sets.flatMap((s) => ids.map((id) => ({ ...s, [param]: id })));
    }
    for (const args of sets) defaults.push(await sized(read.name, args));
    const props = (tools.find((t) => t.name === read.name)?.inputSchema.properties ?? {}) as Record<
      string,
      { maximum?: number; enum?: string[] }
    >;
    const last = sets[sets.length - 1] as Args;
    if (props.limit?.maximum !== undefined) extremes.push(await sized(read.name, { ...last, limit: props.limit.maximum }));
    if (props.window?.enum?.includes('all')) extremes.push(await sized(read.name, { ...last, window: 'all' }));
  }
  return { defaults, extremes };
}

/** Per tool, its largest result among the given calls. */
export function largestPerTool(rows: readonly Sized[]): Map<string, Sized & { calls: number }> {
  const out = new Map<string, Sized & { calls: number }>();
  for (const r of rows) {
    const w = out.get(r.tool);
    if (!w || largest(r) > largest(w)) out.set(r.tool, { ...r, calls: (w?.calls ?? 0) + 1 });
    else w.calls += 1;
  }
  return out;
}
