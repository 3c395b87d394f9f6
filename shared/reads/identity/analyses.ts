import * as z from 'zod';
import { analysisParam, cursorParam, iso, isoOrNull, limitParam, listOf, timestamp, uuid } from '../../contracts/common.js';
import { decodeCursor, encodeCursor } from '../../cursor.js';
import { defineRead } from '../types.js';

const brandRef = z.object({ id: uuid, name: z.string() });
const collectionState = z
  .enum(['never_collected', 'collected'])
  .describe('never_collected: no collection has finished yet, so every figure read answers with null figures; collected: at least one collection finished.');

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

const SUMMARY_COLUMNS = `
  a.id, a.slug, a.name, a.created_at, b.id AS brand_id, b.name AS brand_name,
  (SELECT max(r.collected_at) FROM runs r WHERE r.analysis_id = a.id) AS last_collected_at`;

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
    'The analyses the key reaches, by slug, paged with limit and cursor. Start here: pass a slug or id as `analysis` to every other read.',
  input: z.strictObject({ limit: limitParam(200, 50), cursor: cursorParam }),
  output: listOf(analysisSummary, 'analysis_list', 'Analyses the key may read, ordered by slug.'),
  errors: ['invalid_request', 'cursor_expired'],
  run: async (ctx, input) => {
    const binding = { read: 'list_analyses', analysis: null, key: ctx.identity.key.id, window: '' };
    const after = input.cursor === undefined ? '' : z.string().parse(decodeCursor(ctx.cursorSecret, input.cursor, binding));
    const reach = ctx.identity.reach.map((a) => a.id);
    const rows = await ctx.db.query<SummaryRow>(
      `SELECT ${SUMMARY_COLUMNS}
         FROM analyses a JOIN brands b ON b.id = a.brand_id
        WHERE a.id = ANY ($1::uuid[]) AND a.slug COLLATE "C" > $2
        ORDER BY a.slug COLLATE "C"
        LIMIT $3`,
      [reach, after, input.limit + 1],
    );
    const page = rows.slice(0, input.limit);
    const more = rows.length > input.limit;
    const last = page[page.length - 1];
    return {
      items: page.map(summary),
      next_cursor: more && last ? encodeCursor(ctx.cursorSecret, binding, last.slug) : null,
      truncated: more,
      total: reach.length,
    };
  },
});

const analysisSchema = analysisSummary
  .extend({
    language: z.string().describe('Language of the prompts, ISO 639-1.'),
    country: z.string().describe('Market of the analysis, ISO 3166-1 alpha-2.'),
    brand: brandRef.extend({ domain: z.string().nullable() }).describe('The tracked brand.'),
    owned_domains: z
      .array(z.string())
      .describe('Domains of the brand itself; citations to them make up source share. Empty: source share is null (no_owned_domains).'),
    engines: z.array(z.object({ key: z.string(), name: z.string() })).describe('AI engines the analysis is configured to query.'),
    competitors: z
      .array(z.object({ id: uuid, name: z.string(), domain: z.string().nullable() }))
      .describe('Configured (direct) competitors. Indirect ones are discovered in answers; see the competitors read.'),
    prompts: z.number().int().min(0).describe('Number of prompts in the analysis.'),
    groups: z.number().int().min(0).describe('Number of prompt groups.'),
    latest_run: z
      .object({
        id: uuid,
        state: z.enum(['collecting', 'extracting', 'finished', 'failed']),
        started_at: timestamp,
        collected_at: timestamp.nullable(),
        finished_at: timestamp.nullable(),
      })
      .nullable()
      .describe('The most recent run, finished or not; null when none ever started.'),
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
  latest_run: { id: string; state: 'collecting' | 'extracting' | 'finished' | 'failed'; started_at: string; collected_at: string | null; finished_at: string | null } | null;
}

const jsonTime = (s: string | null) => (s === null ? null : new Date(s).toISOString());

export const getAnalysis = defineRead({
  name: 'get_analysis',
  family: 'identity',
  path: '/analyses/{analysis}',
  summary: 'Get one analysis',
  description:
    'One analysis by slug or id: tracked brand, owned domains, configured engines and competitors, prompt counts, latest run. An unknown analysis and one outside the key’s reach both answer 404 analysis_not_found.',
  input: z.strictObject({ analysis: analysisParam }),
  output: analysisSchema,
  errors: ['analysis_not_found'],
  run: async (ctx) => {
    const [row] = await ctx.db.query<AnalysisRow>(
      `SELECT ${SUMMARY_COLUMNS}, a.language, a.country, a.owned_domains, b.domain AS brand_domain,
         (SELECT json_agg(json_build_object('key', e.key, 'name', e.name) ORDER BY array_position(a.engines, e.key))
            FROM engines e WHERE e.key = ANY (a.engines)) AS engines,
         (SELECT json_agg(json_build_object('id', c.id, 'name', c.name, 'domain', c.domain) ORDER BY c.name, c.id)
            FROM competitors c WHERE c.analysis_id = a.id) AS competitors,
         (SELECT count(*)::int FROM prompts p WHERE p.analysis_id = a.id) AS prompts,
         (SELECT count(*)::int FROM prompt_groups g WHERE g.analysis_id = a.id) AS groups,
         (SELECT json_build_object('id', r.id, 'state', r.state, 'started_at', r.started_at,
                                   'collected_at', r.collected_at, 'finished_at', r.finished_at)
            FROM runs r WHERE r.analysis_id = a.id ORDER BY r.started_at DESC, r.id DESC LIMIT 1) AS latest_run
       FROM analyses a JOIN brands b ON b.id = a.brand_id
      WHERE a.id = $1`,
      [ctx.analysis!.id],
    );
    if (!row) throw new Error(`analysis ${ctx.analysis!.id} vanished between reach and read`);
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
