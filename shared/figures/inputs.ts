import * as z from 'zod';
import { analysisParam } from '../contracts/common.js';
import { checkWindow, windowParams, WINDOW_NAMES } from '../windows.js';

/** Window parameters of reads 4 and 6-10: every window, default last-run (SPEC §4.2). */
export const FIGURE_WINDOWS = WINDOW_NAMES;
export const figureWindow = windowParams(FIGURE_WINDOWS, 'last-run');

export const WINDOW_NOTE =
  ' Window: last-run (default; the last finished collection), 7d, 14d, 30d, 90d (N days ending on the day of the last finished collection), all, or from/to (inclusive UTC days). Comparison: the previous collection for last-run, the period of equal length just before for Nd and from/to, none for all. The response starts with the measurement context (window understood, comparison, run, measurement date, recipes, per-engine coverage). 0 is a measured zero; null means nothing to measure.';

export const figureInput = z.strictObject({ analysis: analysisParam, ...figureWindow }).superRefine(checkWindow);
