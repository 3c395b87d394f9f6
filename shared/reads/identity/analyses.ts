import {
  analysisParam,
  COMPETITORS_PER_ANALYSIS,
  cursorParam,
  ENGINES_PER_ANALYSIS,
  iso,
  isoOrNull,
  limitParam,
  listOf,
  OWNED_DOMAINS_PER_ANALYSIS,
  timestamp,
  uuid,
} from '../contracts/common.js';
import { runRef } from '../contracts/run.js';
import * as z from '../contracts/zod.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { defineRead, scopedAnalysis } from '../types.js';

const brandRef = z.object({ id: uuid, name: z.string() });
const collectionState = z
  .enum(['never_collected', 'collected'])
  .describe(
    'never_collected: no collection has finished yet, so every figure read answers with null figures; collected: at least one collection finished.',
  );

const analysisSummary = z
  .object({
    id: uuid,
    slug: z.string(),
    name: z.string(),
    brand: brandRef.describe('The tracked brand.'),
    state: collectionState,
    last_collected_at: timestamp.nullable().describe('End of the latest finished collection; null when never collected.'),
    created_at: timestamp,
  })
  .meta({ id: 'analysis_summary', description: 'An analysis as listed: identifiers, tracked brand and collection state.' });

interface SummaryRow {
  id: string;
  slug: string;
  name: string;
  created_at: Date;
  brand_id: string;
  brand_name: string;
  last_collected_at: Date | null;
}

const summary = (r: SummaryRow) => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  brand: { id: r.brand_id, name: r.brand_name },
  state: r.last_collected_at ? ('collected' as const) : ('never_collected' as const),
  last_collected_at: isoOrNull(r.last_collected_at),
  created_at: iso(r.created_at),
});

export const listAnalyses = defineRead({
  name: 'list_analyses',
  family: 'identity',
  path: '/analyses',
  summary: 'List the analyses the key can read',
  description:
    'The analyses the key reaches, by slug (last_collected_at null: never collected), paged with limit and cursor (next_cursor null on the last page). Start here: pass a slug or id as `analysis` to every other read.',
  input: z.strictObject({ limit: limitParam(200, 50), cursor: cursorParam }),
  output: listOf(analysisSummary, 'analysis_list', 'Analyses the key may read, ordered by slug.'),
  errors: ['invalid_request', 'cursor_expired'],
  run: async (ctx, input) => {
    const binding = { read: 'list_analyses', analysis: null, key: ctx.caller.key.id, window: '' };
    const after = input.cursor === undefined ? '' : z.string().parse(decodeCursor(ctx.cursorSecret, input.cursor, binding));
    // Keyset on the slug with the reach predicate in SQL (api_analyses_page, shared/admin/sql/functions/identity.sql): a page reads its own rows, whatever its position.
    const rows = await ctx.db.query<SummaryRow>('SELECT * FROM api_analyses_page($1::uuid, $2::text, $3::integer)', [
      ctx.caller.key.id,
      after,
      input.limit + 1,
    ]);
    const page = rows.slice(0, input.limit);
    const more = rows.length > input.limit;
    const last = page[page.length - 1];
    return {
      items: page.map(summary),
      next_cursor: more && last ? encodeCursor(ctx.cursorSecret, binding, last.slug) : null,
      truncated: more,
      total: ctx.caller.reach.count,
    };
  },
});

const analysisSchema = analysisSummary
  .extend({
    language: z.string().describe('Language of the prompts, ISO 639-1.'),
    country: z.string().describe('Market of the analysis, ISO 3166-1 alpha-2.'),
    brand: brandRef
      .extend({ domain: z.string().nullable().describe('Web domain of the brand; null when none is configured.') })
      .describe('The tracked brand.'),
    owned_domains: z
      .array(z.string())
      .max(OWNED_DOMAINS_PER_ANALYSIS)
      .describe('Domains of the brand itself; citations to them make up source share. Empty: source share is null (no_owned_domains).'),
    engines: z
      .array(z.object({ key: z.string(), name: z.string() }))
      .max(ENGINES_PER_ANALYSIS)
      .describe('AI engines the analysis is configured to query.'),
    competitors: z
      .array(
        z.object({
          id: uuid,
          name: z.string(),
          domain: z.string().nullable().describe('Web domain of the competitor; null when none is configured.'),
        }),
      )
      .max(COMPETITORS_PER_ANALYSIS)
      .describe('Configured (direct) competitors. Indirect ones are discovered in answers; see the competitors read.'),
    prompts: z.number().int().min(0).describe('Number of prompts in the analysis.'),
    groups: z.number().int().min(0).describe('Number of prompt groups.'),
    latest_run: runRef.nullable().describe('The most recent run, finished or not; null when none ever started.'),
  })
  .meta({ id: 'analysis', description: 'One analysis: its tracked brand, owned domains, configured engines and competitors.' });

interface AnalysisRow extends SummaryRow {
  language: string;
  country: string;
  brand_domain: string | null;
  owned_domains: string[];
  engines: { key: string; name: string }[] | null;
  competitors: { id: string; name: string; domain: string | null }[] | null;
  prompts: number;
  groups: number;
  latest_run: {
    id: string;
    state: 'collecting' | 'extracting' | 'finished' | 'failed';
    started_at: string;
    collected_at: string | null;
    finished_at: string | null;
  } | null;
}

const jsonTime = (s: string | null) => (s === null ? null : new Date(s).toISOString());

export const getAnalysis = defineRead({
  name: 'get_analysis',
  family: 'identity',
  path: '/analyses/{analysis}',
  summary: 'Get one analysis',
  description:
    'One analysis by slug or id: tracked brand, owned domains, configured engines and competitors (domain null: none configured), prompt counts, latest run (null: none started). Use it to learn what an analysis tracks before reading its figures.',
  input: z.strictObject({ analysis: analysisParam }),
  output: analysisSchema,
  errors: ['analysis_not_found'],
  run: async (ctx) => {
    const [row] = await ctx.db.query<AnalysisRow>('SELECT * FROM api_analysis($1::uuid)', [scopedAnalysis(ctx).id]);
    if (!row) throw new Error(`analysis ${scopedAnalysis(ctx).id} vanished between reach and read`);
    return {
      ...summary(row),
      language: row.language,
      country: row.country,
      brand: { id: row.brand_id, name: row.brand_name, domain: row.brand_domain },
      owned_domains: row.owned_domains,
      engines: row.engines ?? [],
      competitors: row.competitors ?? [],
      prompts: row.prompts,
      groups: row.groups,
      latest_run: row.latest_run && {
        ...row.latest_run,
        started_at: jsonTime(row.latest_run.started_at) as string,
        collected_at: jsonTime(row.latest_run.collected_at),
        finished_at: jsonTime(row.latest_run.finished_at),
      },
    };
  },
});
