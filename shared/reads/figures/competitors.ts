import { untrustedText, uuid } from '../contracts/common.js';
import { figureListOf, meanSchema } from '../contracts/figures.js';
import { rateSchema } from '../contracts/rates.js';
import * as z from '../contracts/zod.js';
import { meanFigure, rateFigure } from '../stats.js';
import { defineRead } from '../types.js';
import { segmentedInput } from './inputs.js';
import {
  type CommonJson,
  callFigures,
  corrected,
  fromArrays,
  loadCommon,
  ofPeriod,
  type Segment,
  type SegmentsJson,
  type Sums,
  segmentSums,
  total,
} from './load.js';

/**
 * Indirect competitors are every other brand an answer names, so their number grows with the history and
 * with how loosely engines name brands; the list keeps the most mentioned, enough to see who competes
 * for attention, and a single page a model host forwards whole (each brand weighs in both MCP parts).
 */
export const INDIRECT_LIMIT = 50;

/** Most mentioned first; ties by name (UTF-16 order), so the cut is the same on every call. */
const byMentions = (a: { mentions: number; name: string }, b: { mentions: number; name: string }): number =>
  b.mentions - a.mentions || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

const brandFigures = {
  rank: z
    .number()
    .int()
    .min(1)
    .nullable()
    .describe(
      'Rank by mentions over the window among all brands named (tracked brand included), 1 = most mentioned; ties share a rank (1, 2, 2, 4). Null when no brand mention was measured.',
    ),
  previous_rank: z
    .number()
    .int()
    .min(1)
    .nullable()
    .describe('Rank in the comparison period; null without comparison or when not named then.'),
  mentions: z.number().int().min(0).describe('Mentions of this brand in extracted answers of the window. Integer ≥ 0.'),
  share_of_voice: rateSchema('This brand’s mentions over all brand mentions in the window, 0..1.'),
  visibility: rateSchema('Share of extracted answers naming this brand, 0..1.'),
  average_position: meanSchema('Mean first order of appearance of this brand in the answers naming it.', '≥ 1'),
};

/**
 * A brand's figures, written once: the pooled ones of an item and of the tracked brand extend it, and each
 * segment is one of it over the answers to one kind of prompt.
 */
const brandFiguresSchema = z.object(brandFigures).meta({
  id: 'brand_figures',
  description: 'A brand’s figures over the window’s extracted answers (within segments: those to one kind of prompt).',
});

const brandSegments = z
  .object({
    branded: brandFiguresSchema.describe('Over branded prompts (naming the tracked brand).'),
    non_branded: brandFiguresSchema.describe('Over the other prompts.'),
  })
  .meta({
    id: 'brand_segments',
    description: 'A brand’s figures split by kind of prompt; counts and denominators of the two add up to the pooled ones.',
  })
  .nullable()
  .describe('Null unless segments=branded.');

const competitorItem = brandFiguresSchema
  .extend({
    name: untrustedText('the brand’s name: as configured for a direct competitor, as named in AI answers for an indirect one.'),
    kind: z
      .enum(['direct', 'indirect'])
      .describe('direct: configured competitor of the analysis; indirect: discovered in answers, not configured.'),
    competitor_id: uuid.nullable().describe('Identifier of a direct competitor; null for indirect ones.'),
    domain: z
      .string()
      .nullable()
      .describe('Web domain of a direct competitor, as configured; null when none is configured, and for indirect competitors.'),
    segments: brandSegments,
  })
  .meta({
    id: 'competitor',
    description: `A competing brand. Direct competitors are listed even at 0 mentions; indirect ones when named in the window, the ${INDIRECT_LIMIT} most mentioned.`,
  });

export const competitorListSchema = figureListOf(
  competitorItem,
  'competitor_list',
  `Competing brands, direct (configured) and indirect (discovered in answers), ranked by mentions over the window, and the tracked brand’s own rank. One page: every direct competitor and the ${INDIRECT_LIMIT} most mentioned indirect ones (ties by name); truncated: more were named; total counts them all.`,
  {
    tracked: brandFiguresSchema
      .extend({ name: z.string(), segments: brandSegments })
      .meta({ id: 'tracked_brand', description: 'The tracked brand, ranked among its competitors.' }),
  },
  `indirect competitors past the ${INDIRECT_LIMIT} most mentioned`,
);

/** A brand's counts in one period: mentions, answers naming it, its first positions. */
interface BrandSums {
  mentions: number;
  answers: number;
  position_sum: number;
  position_n: number;
  position_sq: number;
}

interface BrandRow extends BrandSums {
  period: number;
  brand: string;
  is_tracked: boolean;
  competitor_id: string | null;
}

/** The order of a row of fig_branded_brands (shared/admin/sql/functions/figures.sql). */
const BRAND_SEGMENT_COLUMNS = ['period', 'branded', 'brand', 'mentions', 'answers', 'position_sum', 'position_n', 'position_sq'] as const;

type Pair<T> = [T, T];

/**
 * Standard competition ranking ("1224") by mentions: one sort, then each count's first place, so the
 * work stays n log n in the brands a window names (every indirect brand of a long history).
 */
function ranks(counts: Map<string, number>): Map<string, number> {
  const sorted = [...counts.values()].sort((a, b) => b - a);
  const firstPlace = new Map<number, number>();
  sorted.forEach((n, i) => {
    if (!firstPlace.has(n)) firstPlace.set(n, i + 1);
  });
  const out = new Map<string, number>();
  for (const [name, n] of counts) out.set(name, firstPlace.get(n) ?? 0);
  return out;
}

/**
 * The figures of any brand over one slice of the answers (all of them, or one kind of prompt): its counts
 * per period, and per period the slice's brand mentions and extracted answers (the denominators). Ranks
 * are among the brands the slice names; in the window, the tracked brand and the configured competitors
 * rank even at 0 mentions.
 */
function brandFiguresOver(
  by: Pair<Map<string, BrandSums>>,
  totals: Pair<{ mentions: number; extracted: number }>,
  hasPrev: boolean,
  alwaysRanked: string[],
) {
  const rankingOf = (period: 0 | 1): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const [name, r] of by[period]) if (r.mentions > 0) counts.set(name, r.mentions);
    if (period === 0) for (const name of alwaysRanked) if (!counts.has(name)) counts.set(name, 0);
    return ranks(counts);
  };
  const rankings: Pair<Map<string, number>> = [rankingOf(0), rankingOf(1)];
  return (name: string) => {
    const cur = by[0].get(name);
    const prev = by[1].get(name);
    const mentions = cur?.mentions ?? 0;
    return {
      rank: totals[0].mentions > 0 ? (rankings[0].get(name) ?? null) : null,
      previous_rank: hasPrev && totals[1].mentions > 0 ? (rankings[1].get(name) ?? null) : null,
      mentions,
      share_of_voice: rateFigure(mentions, totals[0].mentions, hasPrev ? { k: prev?.mentions ?? 0, n: totals[1].mentions } : null),
      visibility: rateFigure(cur?.answers ?? 0, totals[0].extracted, hasPrev ? { k: prev?.answers ?? 0, n: totals[1].extracted } : null),
      average_position: meanFigure(
        { sum: cur?.position_sum ?? 0, sq: cur?.position_sq ?? 0, n: cur?.position_n ?? 0 },
        hasPrev ? { sum: prev?.position_sum ?? 0, sq: prev?.position_sq ?? 0, n: prev?.position_n ?? 0 } : null,
      ),
    };
  };
}

const denominators = (s: Sums) => ({ mentions: s.brand_mentions, extracted: s.extracted });

/** Each kind of prompt's brands per period, from fig_branded_brands' rows. */
function segmentBrands(rows: unknown[][] | null): Record<Segment, Pair<Map<string, BrandSums>>> {
  const out: Record<Segment, Pair<Map<string, BrandSums>>> = { branded: [new Map(), new Map()], non_branded: [new Map(), new Map()] };
  type Row = BrandSums & { period: number; branded: boolean; brand: string };
  for (const r of fromArrays<Row>(BRAND_SEGMENT_COLUMNS, rows))
    ofPeriod(out[r.branded ? 'branded' : 'non_branded'], r.period).set(r.brand, r);
  return out;
}

export const listCompetitors = defineRead({
  name: 'list_competitors',
  family: 'figures',
  path: '/analyses/{analysis}/competitors',
  summary: 'Competitors ranked over a window',
  description: `Competitors ranked by mentions (all direct ones, the ${INDIRECT_LIMIT} most mentioned indirect ones) with share of voice, visibility and average position, and the tracked brand’s own rank; segments=branded splits them by kind of prompt. Use it to see which brands AI engines name beside or instead of it.`,
  input: segmentedInput,
  output: competitorListSchema,
  errors: ['analysis_not_found', 'invalid_request'],
  run: async (ctx, input) => {
    const raw = await callFigures<{
      common: CommonJson;
      brands: BrandRow[] | null;
      configured: Array<{ id: string; name: string; domain: string | null }>;
      segments: SegmentsJson | null;
      segment_brands: unknown[][] | null;
    }>(ctx, 'api_fig_brands', input, 'last-run', [{ value: input.segments === 'branded', type: 'boolean' }]);
    const { context, engines, res, info } = loadCommon(raw.common);
    const rows = raw.brands ?? [];
    const configured = raw.configured;
    const hasPrev = res.previous !== null;
    const by: Pair<Map<string, BrandRow>> = [new Map(), new Map()];
    for (const r of rows) ofPeriod(by, r.period).set(r.brand, r);
    const ranked = [info.brand, ...configured.map((c) => c.name)];
    const pooled = brandFiguresOver(by, [denominators(total(engines[0])), denominators(total(engines[1]))], hasPrev, ranked);
    let segmentsOf: (name: string) => Record<Segment, ReturnType<typeof pooled>> | null = () => null;
    if (raw.segments) {
      const sums = segmentSums(raw.segments);
      const brands = segmentBrands(raw.segment_brands);
      const over = (k: Segment) =>
        brandFiguresOver(brands[k], [denominators(total(sums[k][0])), denominators(total(sums[k][1]))], hasPrev, ranked);
      const [branded, nonBranded] = [over('branded'), over('non_branded')];
      segmentsOf = (name) => ({ branded: branded(name), non_branded: nonBranded(name) });
    }
    const figures = (name: string) => ({ ...pooled(name), segments: segmentsOf(name) });
    const direct = new Set(configured.map((c) => c.name));
    const indirect = [...by[0].values()]
      .filter((r) => !r.is_tracked && r.brand !== info.brand && !direct.has(r.brand) && r.mentions > 0)
      .map((r) => ({ name: r.brand, mentions: r.mentions }))
      .sort(byMentions);
    const items = [
      ...configured.map((c) => ({ name: c.name, kind: 'direct' as const, competitor_id: c.id, domain: c.domain, ...figures(c.name) })),
      ...indirect
        .slice(0, INDIRECT_LIMIT)
        .map((r) => ({ name: r.name, kind: 'indirect' as const, competitor_id: null, domain: null, ...figures(r.name) })),
    ].sort(byMentions);
    return corrected({
      context,
      tracked: { name: info.brand, ...figures(info.brand) },
      items,
      next_cursor: null,
      truncated: indirect.length > INDIRECT_LIMIT,
      total: configured.length + indirect.length,
    });
  },
});
