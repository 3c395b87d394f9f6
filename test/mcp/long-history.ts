import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { SERIES_SIZE } from '#shared/reads/figures/timeseries.js';
import { reads } from '#shared/reads/registry.js';
import { isScoped, pathParams } from '#shared/reads/types.js';
import { MAX_WINDOW_DAYS } from '#shared/reads/windows.js';
import type { LargeManifest } from '../fixtures/large-dataset.js';
import { largestBytes, largestChars, listerOf, type ResultSizes, resultSizes } from './args.js';

/**
 * The MCP result sizes on a long history (test/fixtures/large-dataset.ts), without jest:
 * what every tool gives with its default arguments, then with each named window, one item more than its
 * default page, and its widest legal calls. Used by the reliability battery's test/reliability/mcp-sizes.long-history.ts (in CI) and by
 * `npm run bench -- mcp`.
 */

type Args = Record<string, unknown>;
export type CallTool = (name: string, args: Args) => Promise<CallToolResult>;

export interface Sized extends ResultSizes {
  tool: string;
  args: Args;
}

/** The larger of text block and structuredContent, in bytes (the rule on any legal call). */
export const largest = largestBytes;
/** The larger of text block and structuredContent, in characters (the rule on default calls). */
export { largestChars };

interface InputProperty {
  default?: unknown;
  maximum?: number;
  enum?: string[];
}

export interface LongHistorySizes {
  /** Every call with default arguments: required path parameters take every value their lister gives. */
  defaults: Sized[];
  /**
   * Per paged tool, its default arguments with `limit` one more than the default page, on the arguments
   * of its largest default call: what the next larger default page would weigh.
   */
  nextPages: Sized[];
  /**
   * Per tool, its widest legal calls, one at a time, on the arguments of each default call: the largest
   * page, window=all, a custom window of the widest legal span ending on the last day of the history.
   */
  extremes: Sized[];
  /**
   * Per tool that takes a window, its default arguments (the default page included) with every named
   * window in turn: what a model gets when it picks the window and leaves the rest to the defaults.
   */
  windows: Sized[];
}

/**
 * Whether a tool's default call must fit with this window: every window, but for get_metrics_timeseries,
 * whose description advises SERIES_SIZE.window or less (a day with a run weighs SERIES_SIZE.dayBytes).
 */
export function pageFitsAnyWindow(tool: string, window: string): boolean {
  if (tool !== 'get_metrics_timeseries') return true;
  return window !== 'all' && windowDays(window) <= windowDays(SERIES_SIZE.window);
}

const windowDays = (window: string): number => Number(window.replace(/d$/, '')) || 0;

const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/**
 * Every tool with default arguments on the dataset of `m`: the analysis, then for each other path
 * parameter every value its lister gives (every group and none; the latest run and the oldest listed),
 * except answers, where the longest one (`longestAnswer`) stands for all. Then the next page and the
 * extremes (the widest windows also with segments).
 */
export async function longHistorySizes(
  call: CallTool,
  tools: readonly Tool[],
  m: LargeManifest,
  longestAnswer: string,
): Promise<LongHistorySizes> {
  const defaults: Sized[] = [];
  const nextPages: Sized[] = [];
  const extremes: Sized[] = [];
  const windows: Sized[] = [];
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
    const own: Sized[] = [];
    for (const args of sets) own.push(await sized(read.name, args));
    defaults.push(...own);
    const props = (tools.find((t) => t.name === read.name)?.inputSchema.properties ?? {}) as Record<string, InputProperty>;
    const windowed: Sized[] = [];
    for (const window of props.window?.enum ?? []) for (const args of sets) windowed.push(await sized(read.name, { ...args, window }));
    windows.push(...windowed);
    // One item more on the heaviest default page, whichever window made it so (the default page must
    // fit with any window a model picks; see mcp-sizes.long-history.ts).
    const paged = [...own, ...windowed.filter((s) => pageFitsAnyWindow(read.name, String(s.args.window)))];
    const heaviest = paged.reduce((w, s) => (largestChars(s) > largestChars(w) ? s : w)).args;
    if (typeof props.limit?.default === 'number') nextPages.push(await sized(read.name, { ...heaviest, limit: props.limit.default + 1 }));
    // The widest windows also with every value of any other choice besides its default (segments).
    const choices: Args[] = [{}];
    for (const [name, prop] of Object.entries(props))
      if (name !== 'window' && prop.enum) for (const value of prop.enum.filter((v) => v !== prop.default)) choices.push({ [name]: value });
    for (const args of sets) {
      if (props.limit?.maximum !== undefined) extremes.push(await sized(read.name, { ...args, limit: props.limit.maximum }));
      for (const choice of choices) {
        if (props.window?.enum?.includes('all')) extremes.push(await sized(read.name, { ...args, window: 'all', ...choice }));
        if (props.from && props.to)
          extremes.push(await sized(read.name, { ...args, from: addDays(m.endDate, 1 - MAX_WINDOW_DAYS), to: m.endDate, ...choice }));
      }
    }
  }
  return { defaults, nextPages, extremes, windows };
}

/** Per tool, its largest result among the given calls (by `by`, characters unless told), and how many calls it had. */
export function largestPerTool(rows: readonly Sized[], by: (s: Sized) => number = largestChars): Map<string, Sized & { calls: number }> {
  const out = new Map<string, Sized & { calls: number }>();
  for (const r of rows) {
    const w = out.get(r.tool);
    if (!w || by(r) > by(w)) out.set(r.tool, { ...r, calls: (w?.calls ?? 0) + 1 });
    else w.calls += 1;
  }
  return out;
}
