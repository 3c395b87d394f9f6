import { analysisParam, limitParam, untrustedText } from '../contracts/common.js';
import { figureListOf } from '../contracts/figures.js';
import { rateSchema } from '../contracts/rates.js';
import * as z from '../contracts/zod.js';
import { rateFigure } from '../stats.js';
import { defineRead } from '../types.js';
import { checkWindow } from '../windows.js';
import { figureWindow } from './inputs.js';
import { type CommonJson, callFigures, corrected, loadCommon, total } from './load.js';

export const SOURCE_CATEGORIES = ['owned', 'competitor', 'other'] as const;
type Category = (typeof SOURCE_CATEGORIES)[number];

const sourceItem = z
  .object({
    domain: untrustedText('the cited domain, as extracted (exact host, e.g. blog.acme.com).'),
    owned: z.boolean().describe('True when the domain is one of the analysis’s owned_domains (exact match, current configuration).'),
    category: z
      .enum(SOURCE_CATEGORIES)
      .describe(
        'owned: one of the analysis’s owned_domains; competitor: a domain configured for one of its direct competitors; other: any other site. Exact domain match on the current configuration; owned wins over competitor.',
      ),
    rank: z.number().int().min(1).describe('Rank by citations over the window, 1 = most cited; ties share a rank (1, 2, 2, 4).'),
    previous_rank: z
      .number()
      .int()
      .min(1)
      .nullable()
      .describe('Rank in the comparison period; null without comparison or when not cited then.'),
    citations: z.number().int().min(1).describe('Citations of this domain in extracted answers of the window. Integer ≥ 1.'),
    answers: z.number().int().min(1).describe('Extracted answers citing this domain at least once. Integer ≥ 1.'),
    share: rateSchema('Share of sources: this domain’s citations over all citations in the window, 0..1.'),
  })
  .meta({ id: 'source', description: 'A domain AI engines cited.' });

export const sourceListSchema = figureListOf(
  sourceItem,
  'source_list',
  'Domains cited by AI engines over the window, ranked by share of citations, owned domains flagged, each in its category, with the share of each category. Single page: limit rows, truncated when more domains were cited, total = domains cited.',
  {
    categories: z
      .object({
        owned: rateSchema('Citations of the analysis’s own domains over all citations of the window, 0..1.'),
        competitor: rateSchema('Citations of domains of direct competitors over all citations of the window, 0..1.'),
        other: rateSchema('Citations of every other domain over all citations of the window, 0..1.'),
      })
      .meta({
        id: 'source_categories',
        description:
          'Share of citations per category of cited domain, over every cited domain of the window (not only the listed ones): the three numerators add up to all citations.',
      }),
  },
);

function ranks(values: number[]): number[] {
  return values.map((v) => values.filter((w) => w > v).length + 1);
}

export const listSources = defineRead({
  name: 'list_sources',
  family: 'figures',
  path: '/analyses/{analysis}/sources',
  summary: 'Cited domains ranked by share of sources',
  description:
    'Domains AI engines cited, most cited first, with their share of all citations and their category (owned, competitor, other), plus the share of each category. One page of limit domains; truncated and total say what was left out. Use it to see which sites shape the answers.',
  input: z.strictObject({ analysis: analysisParam, ...figureWindow, limit: limitParam(200, 50) }).superRefine(checkWindow),
  output: sourceListSchema,
  errors: ['analysis_not_found', 'invalid_request'],
  run: async (ctx, input) => {
    const raw = await callFigures<{
      common: CommonJson;
      domains: Array<{ period: number; domain: string; citations: number; answers: number }> | null;
      competitor_domains: string[] | null;
    }>(ctx, 'api_fig_sources', input, 'last-run');
    const { context, engines, res, info } = loadCommon(raw.common);
    const rows = raw.domains ?? [];
    const hasPrev = res.previous !== null;
    const cur = rows.filter((r) => r.period === 0).sort((a, b) => b.citations - a.citations || (a.domain < b.domain ? -1 : 1));
    const prev = rows.filter((r) => r.period === 1).sort((a, b) => b.citations - a.citations);
    const prevBy = new Map(prev.map((r) => [r.domain, r]));
    const prevRankList = ranks(prev.map((x) => x.citations));
    const prevRanks = new Map(prev.map((r, i) => [r.domain, prevRankList[i] as number]));
    const curRanks = ranks(cur.map((r) => r.citations));
    const all: [number, number] = [total(engines[0]).citations, total(engines[1]).citations];
    const owned = new Set(info.ownedDomains);
    const competitor = new Set(raw.competitor_domains ?? []);
    const categoryOf = (domain: string): Category => (owned.has(domain) ? 'owned' : competitor.has(domain) ? 'competitor' : 'other');
    const byCategory: [Record<Category, number>, Record<Category, number>] = [
      { owned: 0, competitor: 0, other: 0 },
      { owned: 0, competitor: 0, other: 0 },
    ];
    for (const r of rows) if (r.period === 0 || r.period === 1) byCategory[r.period][categoryOf(r.domain)] += r.citations;
    const categoryShare = (c: Category) => rateFigure(byCategory[0][c], all[0], hasPrev ? { k: byCategory[1][c], n: all[1] } : null);
    const items = cur.slice(0, input.limit).map((r, i) => ({
      domain: r.domain,
      owned: owned.has(r.domain),
      category: categoryOf(r.domain),
      rank: curRanks[i] as number,
      previous_rank: hasPrev ? (prevRanks.get(r.domain) ?? null) : null,
      citations: r.citations,
      answers: r.answers,
      share: rateFigure(r.citations, all[0], hasPrev ? { k: prevBy.get(r.domain)?.citations ?? 0, n: all[1] } : null),
    }));
    return corrected({
      context,
      categories: { owned: categoryShare('owned'), competitor: categoryShare('competitor'), other: categoryShare('other') },
      items,
      next_cursor: null,
      truncated: cur.length > input.limit,
      total: cur.length,
    });
  },
});
