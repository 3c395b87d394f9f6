import { analysisParam, limitParam, untrustedText } from '../contracts/common.js';
import { figureListOf } from '../contracts/figures.js';
import { rateSchema } from '../contracts/rates.js';
import * as z from '../contracts/zod.js';
import { rateFigure } from '../stats.js';
import { defineRead } from '../types.js';
import { checkWindow } from '../windows.js';
import { figureWindow } from './inputs.js';
import { type CommonJson, callFigures, loadCommon, total } from './load.js';

const sourceItem = z
  .object({
    domain: untrustedText('the cited domain, as extracted (exact host, e.g. blog.acme.com).'),
    owned: z.boolean().describe('True when the domain is one of the analysis’s owned_domains (exact match, current configuration).'),
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
  'Domains cited by AI engines over the window, ranked by share of citations, owned domains flagged. Single page: limit rows, truncated when more domains were cited, total = domains cited.',
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
    'Domains AI engines cited, most cited first, with their share of all citations and whether the analysis owns them. One page of limit domains; truncated and total say what was left out. Use it to see which sites shape the answers.',
  input: z.strictObject({ analysis: analysisParam, ...figureWindow, limit: limitParam(200, 50) }).superRefine(checkWindow),
  output: sourceListSchema,
  errors: ['analysis_not_found', 'invalid_request'],
  run: async (ctx, input) => {
    const raw = await callFigures<{
      common: CommonJson;
      domains: Array<{ period: number; domain: string; citations: number; answers: number }> | null;
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
    const items = cur.slice(0, input.limit).map((r, i) => ({
      domain: r.domain,
      owned: owned.has(r.domain),
      rank: curRanks[i] as number,
      previous_rank: hasPrev ? (prevRanks.get(r.domain) ?? null) : null,
      citations: r.citations,
      answers: r.answers,
      share: rateFigure(r.citations, all[0], hasPrev ? { k: prevBy.get(r.domain)?.citations ?? 0, n: all[1] } : null),
    }));
    return { context, items, next_cursor: null, truncated: cur.length > input.limit, total: cur.length };
  },
});
