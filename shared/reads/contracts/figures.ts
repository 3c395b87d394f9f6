import { WINDOW_NAMES } from '../windows.js';
import { day, timestamp } from './common.js';
import { bounds, count, engineRef, interval, pValue, rate, rateSchema, significant, significantFdr } from './rates.js';
import { runRef } from './run.js';
import * as z from './zod.js';

/**
 * The parts of the figure reads' schemas (metrics to group prompts): the measurement context and the
 * figure shapes. The rate and its interval, which the run read publishes too, are in rates.ts; what it
 * says of the `.meta({ id })` components holds here too.
 */

const meanValue = z
  .object({
    value: z.number().nullable().describe('Mean, rounded to 6 decimals; null when count is 0 (nothing to average).'),
    count: count('Number of values averaged'),
    ci95: bounds
      .nullable()
      .describe('Student t 95% interval of the mean (count − 1 df, sample sd), not clipped to the values’ range; null when count < 2.'),
  })
  .meta({ id: 'mean_value', description: 'An average over one period, with its 95% interval.' });

const mean = meanValue
  .extend({
    previous: meanValue.nullable().describe('The same mean over the comparison period; null when there is none.'),
    delta: z.number().nullable().describe('value − previous.value (unrounded, then rounded to 6 decimals); null when either is null.'),
    delta_ci95: bounds
      .nullable()
      .describe('Welch’s 95% interval of delta (Welch–Satterthwaite df; one point when both variances are 0); null when either count < 2.'),
    significant,
    p_value: pValue('Welch t test'),
    significant_fdr: significantFdr,
  })
  .meta({
    id: 'mean',
    description: 'An average with its 95% interval, and its comparison: previous, delta, delta’s 95% interval and significance.',
  });

/** The mean figure, described for the field that holds it; `range` is the range of its values. */
export function meanSchema(description: string, range: string) {
  return mean.describe(`${description} Values ${range}; null when count is 0 (nothing to average).`);
}

export const SOURCE_SHARE_NULL_REASONS = ['no_citations', 'no_owned_domains', 'not_measured'] as const;

/** A rate on one day of the series, with its interval; no comparison (the series' summary carries it for the window). */
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
    ci95: interval,
  })
  .meta({ id: 'day_rate', description: 'A rate on one day: value = numerator / denominator, with its 95% Wilson interval.' });

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

/** An average on one day: value, count and interval (mean_value). */
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

export const SHARE_OF_VOICE_DIRECT_NULL_REASONS = ['no_mentions', 'not_measured'] as const;

/** The headline of a whole window (metrics, the series' summary): every headline figure, and the share of voice on the direct universe. */
export const windowHeadlineSchema = headlineSchema
  .extend({
    share_of_voice_direct: rate
      .extend({
        null_reason: z
          .enum(SHARE_OF_VOICE_DIRECT_NULL_REASONS)
          .nullable()
          .describe(
            'Why value is null: not_measured (nothing extracted in the window; see context.state), no_mentions (measured answers named neither the tracked brand nor a direct competitor). Null when value is not null.',
          ),
      })
      .meta({
        id: 'share_of_voice_direct',
        description:
          'Share of voice on the direct universe: tracked-brand mentions over those of the tracked brand and its direct (configured) competitors, in extracted answers, 0..1; discovered brands left out. A rate, with the reason when null.',
      }),
    share_of_voice_universe: z
      .object({
        direct: count('Direct competitors the analysis configures: share_of_voice_direct counts 1 + direct brands'),
        discovered: count(
          'Other brands named in the window’s extracted answers (indirect competitors): share_of_voice counts 1 + direct + discovered brands',
        ),
      })
      .meta({ id: 'share_of_voice_universe', description: 'How many brands each share of voice counts besides the tracked brand.' }),
  })
  .meta({
    id: 'window_metrics',
    description:
      'The headline metrics over a window, with the share of voice among direct competitors only and the brands each share counts.',
  });
export type WindowHeadline = z.infer<typeof windowHeadlineSchema>;

/**
 * The figures split by kind of prompt, asked for with segments=branded: the same shape as the pooled
 * figures beside it, over branded prompts and over the others; their counts add up to the pooled ones.
 */
export const segmentsSchema = z
  .object({
    branded: headlineSchema.describe('The same figures over branded prompts only (prompts naming the tracked brand).'),
    non_branded: headlineSchema.describe('The same figures over the other prompts.'),
  })
  .meta({
    id: 'segments',
    description:
      'The figures over branded and over non-branded prompts; the two kinds’ numerators, denominators, counts and answers add up to the pooled ones.',
  })
  .nullable()
  .describe('Null unless segments=branded.');

/** The same split of a window's headline (metrics, the series' summary), said once: its own descriptions are those of segments. */
export const windowSegmentsSchema = z
  .object({ branded: windowHeadlineSchema, non_branded: windowHeadlineSchema })
  .meta({ id: 'window_segments', description: 'As segments, with each kind’s direct share of voice.' })
  .nullable()
  .describe('Null unless segments=branded.');

export const BRANDED_SOURCES = ['pipeline', 'rule'] as const;
export type BrandedSource = (typeof BRANDED_SOURCES)[number];

/**
 * Whether a prompt names the tracked brand, and who said so: the fields a prompt carries wherever it is
 * listed (docs/figures.md, Branded and non-branded prompts).
 */
export const brandedFields = {
  branded: z
    .boolean()
    .describe(
      'True when the prompt names the tracked brand: as the pipeline classified it, else by the rule (the brand or an alias as whole words, ignoring case and accents).',
    ),
  branded_source: z
    .enum(BRANDED_SOURCES)
    .describe('pipeline: the collection pipeline classified it (it wins); rule: it did not, the rule decided.'),
};

export const COMPARISON_CHANGES = ['engines', 'prompts', 'recipes', 'models'] as const;

export const FIGURE_STATES = ['measured', 'extraction_late', 'no_data', 'never_collected'] as const;

export const contextSchema = z
  .object({
    state: z
      .enum(FIGURE_STATES)
      .describe(
        'measured: a run of the window is extracted, or failed after collection; extraction_late: runs collected, none extracted yet (measures null, volumes filled); no_data: collections exist, none in this window; never_collected: no finished collection at all (figures null, not an error).',
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
        comparable: z.boolean().describe('True when changes is empty.'),
        changes: z
          .array(z.enum(COMPARISON_CHANGES))
          .describe(
            'What differs between the periods: engines or prompts with collected answers, recipes of extracted answers, an engine’s models (where known in both).',
          ),
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
    multiple_comparisons: z.object({ method: z.literal('benjamini-hochberg'), q: z.number(), tests: z.number().int().min(0) }).meta({
      id: 'multiple_comparisons',
      description: 'The correction behind significant_fdr: tests = the non-null p_value fields of the reply.',
    }),
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
  maxItems?: number,
) {
  return z
    .object({
      context: contextSchema,
      ...(extra ?? ({} as E)),
      items: maxItems === undefined ? z.array(item) : z.array(item).max(maxItems),
      next_cursor: z.null().describe('Always null: this read returns a single page.'),
      truncated: z.boolean().describe(`True when more rows exist than were returned (${truncation}).`),
      total: z.number().int().min(0).describe('Total number of items in the window, over all rows.'),
    })
    .meta({ id, description });
}
