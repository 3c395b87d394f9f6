import { analysisParam, iso, listOf, timestamp, uuid } from '../contracts/common.js';
import { type BrandedSource, brandedFields } from '../contracts/figures.js';
import * as z from '../contracts/zod.js';
import { defineRead, scopedAnalysis } from '../types.js';

const promptItem = z
  .object({
    id: uuid,
    text: z.string().describe('The prompt as asked to the AI engines, written by the workspace.'),
    group: z
      .object({ id: uuid, name: z.string() })
      .nullable()
      .describe(
        'The prompt group it belongs to; null when the prompt is in no group (the reserved group word `none` of the group prompts read).',
      ),
    language: z.string().describe('Language of the prompt, ISO 639-1.'),
    created_at: timestamp.describe('When the prompt was added to the analysis.'),
    ...brandedFields,
  })
  .meta({
    id: 'prompt',
    description: 'A prompt of the analysis, with its group, language, creation date and whether it names the tracked brand.',
  });

/**
 * The most prompts an analysis holds: the store refuses one more (constraint prompts_per_analysis), so the
 * catalogue, one reply, stays within what a function may answer (docs/data-contract.md#bounds).
 */
export const PROMPTS_PER_ANALYSIS = 500;

const promptCatalog = listOf(
  promptItem,
  'prompt_catalog',
  'Every prompt of the analysis, with its group, language and creation date, in one page (next_cursor null, truncated false). No metrics: question-grain figures exist only on the prompts of a group (group_prompt_list).',
  PROMPTS_PER_ANALYSIS,
);

interface PromptRow {
  id: string;
  text: string;
  group_id: string | null;
  group_name: string | null;
  language: string;
  created_at: Date;
  branded: boolean;
  branded_source: BrandedSource;
}

interface PromptPageRow {
  total: number;
  id: string | null;
  text: string;
  group_id: string | null;
  group_name: string | null;
  language: string;
  created_at: Date;
  branded: boolean;
  branded_source: BrandedSource;
}

const itemOf = (r: Omit<PromptRow, 'id'> & { id: string }) => ({
  id: r.id,
  text: r.text,
  group: r.group_id === null ? null : { id: r.group_id, name: r.group_name as string },
  language: r.language,
  created_at: iso(r.created_at),
  branded: r.branded,
  branded_source: r.branded_source,
});

export const listPrompts = defineRead({
  name: 'list_prompts',
  family: 'catalog',
  path: '/analyses/{analysis}/prompts',
  summary: 'List the prompts of an analysis (no metrics)',
  description:
    'Every prompt of the analysis with its group (null: none), language, creation date and branded (names the brand or not), oldest first, in one page. No figures: use it to see what is asked; per-prompt figures come from list_group_prompts.',
  input: z.strictObject({ analysis: analysisParam }),
  output: promptCatalog,
  errors: ['analysis_not_found'],
  run: async (ctx) => {
    const rows = await ctx.db.query<PromptRow>('SELECT * FROM api_prompt_catalog($1::uuid)', [scopedAnalysis(ctx).id]);
    return { items: rows.map(itemOf), next_cursor: null, truncated: false, total: rows.length };
  },
  // MCP's pages: one statement that reads the page and the kept total, never the rest of the catalogue.
  runPage: async (ctx, _input, page) => {
    const rows = await ctx.db.query<PromptPageRow>('SELECT * FROM api_prompts_page($1::uuid, $2::integer, $3::bigint)', [
      scopedAnalysis(ctx).id,
      page.limit,
      page.offset,
    ]);
    const total = rows[0]?.total ?? 0;
    const items = rows.flatMap((r) => (r.id === null ? [] : [itemOf({ ...r, id: r.id })]));
    return { items, next_cursor: null, truncated: page.offset + items.length < total, total };
  },
});
