import * as z from 'zod';
import { day, timestamp } from '../contracts/common.js';
import { runRef } from '../contracts/run.js';
import { WINDOW_NAMES } from '../windows.js';

/** Shared pieces of the figure schemas (reads 4-10): the measurement context and the figure shapes. */

const count = (what: string) => z.number().int().min(0).describe(`${what}. Integer ≥ 0.`);

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

export const interval = intervalBounds
  .nullable()
  .describe('95% Wilson score interval of the rate, rounded to 6 decimals; null when the denominator is 0.');

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

const rate = rateValue
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
    significant: z
      .boolean()
      .nullable()
      .describe(
        'True when the change is outside the noise: the 95% Wilson intervals of the two periods do not overlap. Null when either interval is null.',
      ),
  })
  .meta({
    id: 'rate',
    description:
      'A rate, 0..1: value = numerator / denominator with its 95% Wilson interval, and the same rate over the comparison period with the change and its significance.',
  });

/** The rate figure, described for the field that holds it. */
export function rateSchema(description: string) {
  return rate.describe(description);
}

const meanValue = z
  .object({
    value: z.number().nullable().describe('Mean, rounded to 6 decimals; null when count is 0 (nothing to average).'),
    count: count('Number of values averaged'),
  })
  .meta({ id: 'mean_value', description: 'An average over one period.' });

const mean = meanValue
  .extend({
    previous: meanValue.nullable().describe('The same mean over the comparison period; null when there is none.'),
    delta: z.number().nullable().describe('value − previous.value (unrounded, then rounded to 6 decimals); null when either is null.'),
  })
  .meta({
    id: 'mean',
    description: 'An average with its comparison: value, previous and delta. An average carries no interval and no significance test.',
  });

/** The mean figure, described for the field that holds it; `range` is the range of its values. */
export function meanSchema(description: string, range: string) {
  return mean.describe(`${description} Values ${range}; null when count is 0 (nothing to average).`);
}

export const SOURCE_SHARE_NULL_REASONS = ['no_citations', 'no_owned_domains', 'not_measured'] as const;

/**
 * A rate on one day of the series: no interval and no comparison, which would be derivable or always
 * null on a point (the series' summary carries them for the window).
 */
export const dayRate = z
  .object({
    value: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .describe('numerator / denominator, 0..1, rounded to 6 decimals; null when the denominator is 0.'),
    numerator: count('Numerator of the rate'),
    denominator: count('Denominator of the rate'),
  })
  .meta({
    id: 'day_rate',
    description:
      'A rate on one day: value = numerator / denominator. Its 95% Wilson interval follows from numerator and denominator; the summary carries the window’s.',
  });

export const daySourceShare = dayRate
  .extend({
    null_reason: z
      .enum(SOURCE_SHARE_NULL_REASONS)
      .nullable()
      .describe('Why value is null, as in source_share; null when value is not null.'),
  })
  .meta({
    id: 'day_source_share',
    description: 'Citations to owned domains over all citations on one day, with the reason when its value is null.',
  });

/** An average on one day: value and count (mean_value). */
export const dayMean = meanValue;

export const headlineSchema = z
  .object({
    answers: count(
      'Answers collected in the window (volume). Present even while extraction is late: it counts answers of runs still extracting. 0 with state never_collected/no_data',
    ),
    extracted_answers: count(
      'Answers whose extraction succeeded. They alone make the denominator of visibility: an answer whose extraction failed or is pending cannot be said to mention the brand or not',
    ),
    visibility: rateSchema(
      'Share of extracted answers that mention the tracked brand at least once (0..1). numerator: answers naming it; denominator: extracted answers.',
    ),
    share_of_voice: rateSchema(
      'Tracked-brand mentions over all brand mentions (tracked brand + direct and indirect competitors) in extracted answers, 0..1.',
    ),
    average_position: meanSchema(
      'Mean order of appearance (1 = named first) of the tracked brand, over the extracted answers that name it, taking its first appearance in each answer.',
      '≥ 1',
    ),
    sentiment: meanSchema('Mean sentiment of the tracked brand’s scored mentions; unscored mentions are left out.', '-1..1'),
    source_share: rate
      .extend({
        null_reason: z
          .enum(SOURCE_SHARE_NULL_REASONS)
          .nullable()
          .describe(
            'Why value is null: no_owned_domains (the analysis declares no domain of its own), no_citations (answers were measured but none cited a source), not_measured (nothing extracted in the window; see context.state). Null when value is not null.',
          ),
      })
      .meta({
        id: 'source_share',
        description:
          'Citations to the analysis’s owned domains (exact domain match, as declared when the run was extracted) over all citations of extracted answers, 0..1: a rate, with the reason when its value is null.',
      }),
  })
  .meta({
    id: 'headline_metrics',
    description:
      'The headline metrics of the tracked brand: answers collected and extracted, visibility, share of voice, average position, sentiment and source share.',
  });
export type Headline = z.infer<typeof headlineSchema>;

export const engineRef = z
  .object({ key: z.string().describe('Engine identifier, e.g. chatgpt.'), name: z.string().describe('Display name of the engine.') })
  .meta({ id: 'engine_ref', description: 'An AI engine: its key and display name.' });

export const FIGURE_STATES = ['measured', 'extraction_late', 'no_data', 'never_collected'] as const;

export const contextSchema = z
  .object({
    state: z
      .enum(FIGURE_STATES)
      .describe(
        'measured: at least one run of the window is extracted; extraction_late: the window holds collected runs but none is extracted yet — measures are null, volumes (answers, coverage) are filled; no_data: the analysis has collections, but none in this window; never_collected: the analysis has no finished collection at all — figures null, not an error.',
      ),
    extraction_late: z
      .boolean()
      .describe(
        'True when at least one run of the window is collected but its extraction has not finished. Its answers count in volumes and coverage but not in any measure; measures cover the extracted runs only (null if none).',
      ),
    window: z
      .object({
        name: z.enum([...WINDOW_NAMES, 'custom']).describe('The window as asked; custom for from/to.'),
        first_day: day.nullable().describe('First UTC day covered (inclusive). Null only when never collected with a named window.'),
        last_day: day
          .nullable()
          .describe('Last UTC day covered (inclusive): the day of the last finished collection for named windows; to for custom windows.'),
        days: z.number().int().min(1).nullable().describe('Length in days; null when first_day is null.'),
      })
      .describe('The window as the server understood it. Runs belong to the UTC day they started.'),
    comparison: z
      .object({
        first_day: day,
        last_day: day,
        run: runRef.nullable().describe('For last-run: the previous finished collection; null for day windows.'),
      })
      .nullable()
      .describe(
        'The period every previous/delta compares to: the previous finished collection for last-run, the period of equal length just before for Nd and from/to; null for all, or for last-run when there is no earlier collection.',
      ),
    run: runRef.nullable().describe('The run the figures concern (window last-run); null for day windows.'),
    measured_at: timestamp
      .nullable()
      .describe('Measurement date: end of extraction of the latest extracted run in the window; null when nothing in it is extracted.'),
    recipes: z.array(z.string()).describe('Extraction recipes actually served by the extracted runs of the window, sorted.'),
    coverage: z
      .array(
        z
          .object({
            engine: engineRef,
            expected: count('Answers the runs of the window were to collect from this engine'),
            collected: count('Answers collected'),
            extracted: count('Collected answers whose extraction succeeded'),
            failed: count('Expected answers that could not be collected'),
          })
          .meta({ id: 'engine_coverage', description: 'What the runs of the window collected and extracted from one engine.' }),
      )
      .describe(
        'Per engine configured or seen in the window. collected − extracted = answers still extracting or whose extraction failed.',
      ),
  })
  .meta({ id: 'measurement_context', description: 'Measurement context: how the figures below were measured.' });
export type FigureContext = z.infer<typeof contextSchema>;

/**
 * The list envelope (docs/contract.md#list-envelope) with the measurement context next to the items.
 * `truncation` says what leaves rows out on this read (a limit by default).
 */
export function figureListOf<T extends z.ZodType, E extends z.ZodRawShape = Record<never, never>>(
  item: T,
  id: string,
  description: string,
  extra?: E,
  truncation = 'see limit',
) {
  return z
    .object({
      context: contextSchema,
      ...(extra ?? ({} as E)),
      items: z.array(item),
      next_cursor: z.null().describe('Always null: this read returns a single page.'),
      truncated: z.boolean().describe(`True when more rows exist than were returned (${truncation}).`),
      total: z.number().int().min(0).describe('Total number of items in the window, over all rows.'),
    })
    .meta({ id, description });
}
