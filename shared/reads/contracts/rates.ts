import * as z from './zod.js';

/**
 * The figure shapes more than one family publishes: a rate with its 95% interval and its change (the figures
 * and the run read's changes), and the engine reference. They live beside the families, not in one: a
 * family's bundle holds only its own reads.
 */

export const count = (what: string) => z.number().int().min(0).describe(`${what}. Integer ≥ 0.`);

/**
 * Shared parts carry `.meta({ id })`: each becomes one named component of openapi.json (a type of the
 * generated clients) and one `$defs` entry of an MCP output schema, referenced wherever it is used.
 * The ids are public type names: renaming one is a breaking change for generated clients.
 */
const intervalBounds = z
  .object({
    low: z.number().min(0).max(1).describe('Lower bound, 0..1.'),
    high: z.number().min(0).max(1).describe('Upper bound, 0..1.'),
  })
  .meta({ id: 'interval', description: '95% Wilson score interval of a rate, bounds 0..1 rounded to 6 decimals.' });

export const interval = intervalBounds.nullable().describe('95% Wilson score interval; null when the denominator is 0.');

/** A 95% interval on any scale: a mean's (Student t) or a change's (Newcombe for rates, Welch for means). */
export const bounds = z
  .object({ low: z.number().describe('Lower bound.'), high: z.number().describe('Upper bound.') })
  .meta({ id: 'interval_any', description: '95% interval, bounds rounded to 6 decimals (low ≤ high).' });

export const significant = z
  .boolean()
  .nullable()
  .describe('True when delta_ci95 excludes 0 (a change at the 5% level); null when delta_ci95 is null.');

/** The p-value of the test whose interval delta_ci95 is, described for the figure kind. */
export const pValue = (test: string) =>
  z.number().min(0).max(1).nullable().describe(`p-value of delta (${test}): < 0.05 iff delta_ci95 excludes 0. Null with delta_ci95.`);

export const significantFdr = z
  .boolean()
  .nullable()
  .describe('significant after Benjamini–Hochberg (q 0.05) over every p_value of the reply; never true if significant is not.');

const rateValue = z
  .object({
    value: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .describe('numerator / denominator, 0..1, rounded to 6 decimals. 0 is a measured zero; null: denominator 0, nothing to measure.'),
    numerator: count('Numerator of the rate'),
    denominator: count('Denominator of the rate'),
    ci95: interval,
  })
  .meta({ id: 'rate_value', description: 'A rate over one period: numerator / denominator, with its 95% Wilson interval.' });

export const rate = rateValue
  .extend({
    previous: rateValue
      .nullable()
      .describe(
        'The same rate over the comparison period (context.comparison); null when there is none (window all, or no earlier collection).',
      ),
    delta: z
      .number()
      .min(-1)
      .max(1)
      .nullable()
      .describe('value − previous.value, from unrounded values, then rounded to 6 decimals; null when either is null.'),
    delta_ci95: bounds
      .nullable()
      .describe('95% interval of delta (Newcombe 1998, method 10: from the two Wilson intervals); null when either denominator is 0.'),
    significant,
    p_value: pValue('Newcombe interval inverted'),
    significant_fdr: significantFdr,
  })
  .meta({
    id: 'rate',
    description:
      'A rate, 0..1: value = numerator / denominator with its 95% Wilson interval, and the same rate over the comparison period with the change, its 95% interval and its significance.',
  });

/** The rate figure, described for the field that holds it. */
export function rateSchema(description: string) {
  return rate.describe(description);
}

export const engineRef = z
  .object({ key: z.string().describe('Engine identifier, e.g. chatgpt.'), name: z.string().describe('Display name of the engine.') })
  .meta({ id: 'engine_ref', description: 'An AI engine: its key and display name.' });
