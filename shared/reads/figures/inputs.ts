import { analysisParam } from '../contracts/common.js';
import * as z from '../contracts/zod.js';
import { checkWindow, WINDOW_NAMES, windowParams } from '../windows.js';

/** Window parameters of the figure reads but the time series: every window, default last-run (docs/contract.md#the-fifteen-reads). */
export const FIGURE_WINDOWS = WINDOW_NAMES;
export const figureWindow = windowParams(
  FIGURE_WINDOWS,
  'last-run',
  'Default last-run: the latest collection vs the one before; 7d..90d: the days up to the latest collection vs as many before; all: the whole history, no comparison. Excludes from/to (UTC days vs the span before).',
);

export const figureInput = z.strictObject({ analysis: analysisParam, ...figureWindow }).superRefine(checkWindow);

export const SEGMENT_SPLITS = ['none', 'branded'] as const;

/** Whether a figure read splits its figures by kind of prompt (docs/figures.md, Branded and non-branded prompts). */
export const segmentsParam = {
  segments: z.enum(SEGMENT_SPLITS).default('none').describe('branded: also split figures by prompts naming the brand or not.'),
};

/** The figure reads that can split their figures by kind of prompt: every window, and segments. */
export const segmentedInput = z.strictObject({ analysis: analysisParam, ...figureWindow, ...segmentsParam }).superRefine(checkWindow);
