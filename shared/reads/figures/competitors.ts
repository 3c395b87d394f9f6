import { untrustedText, uuid } from '../contracts/common.js';
import { figureListOf, meanSchema } from '../contracts/figures.js';
import { rateSchema } from '../contracts/rates.js';
import * as z from '../contracts/zod.js';
import { meanFigure, rateFigure } from '../stats.js';
import { defineRead } from '../types.js';
import { figureInput } from './inputs.js';
import { type CommonJson, callFigures, corrected, loadCommon, ofPeriod, type Sums, total } from './load.js';

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

const competitorItem = z
  .object({
    name: untrustedText('the brand’s name: as configured for a direct competitor, as named in AI answers for an indirect one.'),
    kind: z
      .enum(['direct', 'indirect'])
      .describe('direct: configured competitor of the analysis; indirect: discovered in answers, not configured.'),
    competitor_id: uuid.nullable().describe('Identifier of a direct competitor; null for indirect ones.'),
    domain: z
      .string()
      .nullable()
      .describe('Web domain of a direct competitor, as configured; null when none is configured, and for indirect competitors.'),
    ...brandFigures,
  })
  .meta({
    id: 'competitor',
    description: `A competing brand. Direct competitors are listed even at 0 mentions; indirect ones when named in the window, the ${INDIRECT_LIMIT} most mentioned.`,
  });

export const competitorListSchema = figureListOf(
  competitorItem,
  'competitor_list',
  `Competing brands, direct (configured) and indirect (discovered in answers), ranked by mentions over the window, with the tracked brand’s own rank. Single page: every direct competitor, and the ${INDIRECT_LIMIT} most mentioned indirect ones (ties by name); truncated says more indirect ones were named, total counts them all.`,
  {
    tracked: z
      .object({ name: z.string(), ...brandFigures })
      .meta({ id: 'tracked_brand', description: 'The tracked brand, ranked among its competitors.' }),
  },
  `indirect competitors past the ${INDIRECT_LIMIT} most mentioned`,
);

interface BrandRow {
  period: number;
  brand: string;
  is_tracked: boolean;
  competitor_id: string | null;
  mentions: number;
  answers: number;
  position_sum: number;
  position_n: number;
  position_sq: number;
}

/** Standard competition ranking ("1224") by mentions. */
function ranks(counts: Map<string, number>): Map<string, number> {
  const sorted = [...counts.values()].sort((a, b) => b - a);
  const out = new Map<string, number>();
  for (const [name, n] of counts) out.set(name, sorted.indexOf(n) + 1);
  return out;
}

export const listCompetitors = defineRead({
  name: 'list_competitors',
  family: 'figures',
  path: '/analyses/{analysis}/competitors',
  summary: 'Competitors ranked over a window',
  description: `Direct (configured) and indirect (found in answers) competitors ranked by mentions, with share of voice, visibility and average position; the tracked brand with its own rank. All direct ones; the ${INDIRECT_LIMIT} most mentioned indirect ones. Use it to see which brands AI engines name beside or instead of it.`,
  input: figureInput,
  output: competitorListSchema,
  errors: ['analysis_not_found', 'invalid_request'],
  run: async (ctx, input) => {
    const raw = await callFigures<{
      common: CommonJson;
      brands: BrandRow[] | null;
      configured: Array<{ id: string; name: string; domain: string | null }>;
    }>(ctx, 'api_fig_competitors', input, 'last-run');
    const { context, engines, res, info } = loadCommon(raw.common);
    const rows = raw.brands ?? [];
    const configured = raw.configured;
    const hasPrev = res.previous !== null;
    const by: [Map<string, BrandRow>, Map<string, BrandRow>] = [new Map(), new Map()];
    for (const r of rows) ofPeriod(by, r.period).set(r.brand, r);
    const totals: [Sums, Sums] = [total(engines[0]), total(engines[1])];
    const allMentions: [number, number] = [totals[0].brand_mentions, totals[1].brand_mentions];
    const rankingOf = (period: 0 | 1): Map<string, number> => {
      const counts = new Map<string, number>();
      for (const [name, r] of by[period]) if (r.mentions > 0) counts.set(name, r.mentions);
      if (period === 0) {
        counts.set(info.brand, by[0].get(info.brand)?.mentions ?? 0);
        for (const c of configured) if (!counts.has(c.name)) counts.set(c.name, 0);
      }
      return ranks(counts);
    };
    const rankings: [Map<string, number>, Map<string, number>] = [rankingOf(0), rankingOf(1)];
    const figures = (name: string) => {
      const cur = by[0].get(name);
      const prev = by[1].get(name);
      const mentions = cur?.mentions ?? 0;
      return {
        rank: allMentions[0] > 0 ? (rankings[0].get(name) ?? null) : null,
        previous_rank: hasPrev && allMentions[1] > 0 ? (rankings[1].get(name) ?? null) : null,
        mentions,
        share_of_voice: rateFigure(mentions, allMentions[0], hasPrev ? { k: prev?.mentions ?? 0, n: allMentions[1] } : null),
        visibility: rateFigure(cur?.answers ?? 0, totals[0].extracted, hasPrev ? { k: prev?.answers ?? 0, n: totals[1].extracted } : null),
        average_position: meanFigure(
          { sum: cur?.position_sum ?? 0, sq: cur?.position_sq ?? 0, n: cur?.position_n ?? 0 },
          hasPrev ? { sum: prev?.position_sum ?? 0, sq: prev?.position_sq ?? 0, n: prev?.position_n ?? 0 } : null,
        ),
      };
    };
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
