import { NotFound } from '../../errors.js';
import { isUuid } from '../../formats.js';
import { analysisParam, limitParam, offsetParam, uuid } from '../contracts/common.js';
import { type BrandedSource, brandedFields, figureListOf, headlineSchema } from '../contracts/figures.js';
import { engineRef as engineRefSchema } from '../contracts/rates.js';
import * as z from '../contracts/zod.js';
import { defineRead } from '../types.js';
import { checkWindow } from '../windows.js';
import { figureInput, figureWindow } from './inputs.js';
import {
  accumulate,
  type CommonJson,
  callFigures,
  corrected,
  engineRef,
  fromArrays,
  headline,
  loadCommon,
  MEASURES,
  ofPeriod,
  type Sums,
  sumsOf,
  zeroSums,
} from './load.js';

const NO_GROUP = '00000000-0000-0000-0000-000000000000';

const groupId = z
  .union([uuid, z.literal('none')])
  .describe('Group identifier, or none for the prompts in no group; usable as {group} in the group prompts read.');

const groupItem = headlineSchema
  .extend({
    id: groupId,
    name: z.string().nullable().describe('Group name; null for none.'),
    prompts: z.number().int().min(0).describe('Prompts currently in the group. Integer ≥ 0.'),
  })
  .meta({
    id: 'group_metrics',
    description:
      'A prompt group with its headline metrics. A prompt’s figures, its whole history included, count in the group it is in now: moving a prompt moves its figures, so a group’s figures are the sum of its prompts in the group prompts read.',
  });

export const groupListSchema = figureListOf(
  groupItem,
  'group_list',
  'Prompt groups of the analysis with their headline metrics over the window, by name; the pseudo-group none (prompts in no group) last. Single page.',
);

export const listGroups = defineRead({
  name: 'list_groups',
  family: 'figures',
  path: '/analyses/{analysis}/groups',
  summary: 'Prompt groups with their metrics',
  description:
    'Every prompt group (and none: the prompts in no group) with its headline figures; figures follow a prompt’s current group, history included. Use it to find the topics where the brand is strong or weak, then list_group_prompts for their questions.',
  input: figureInput,
  output: groupListSchema,
  errors: ['analysis_not_found', 'invalid_request'],
  run: async (ctx, input) => {
    const raw = await callFigures<{
      common: CommonJson;
      rows: Array<Sums & { period: number; group_key: string }> | null;
      groups: Array<{ id: string; name: string | null; prompts: number }>;
      pending: Record<string, number> | null;
    }>(ctx, 'api_fig_groups', input, 'last-run');
    const { context, res, info } = loadCommon(raw.common);
    const rows = raw.rows ?? [];
    const groups = raw.groups;
    const pending = new Map(Object.entries(raw.pending ?? {}));
    const by: [Map<string, Sums>, Map<string, Sums>] = [new Map(), new Map()];
    for (const r of rows) ofPeriod(by, r.period).set(r.group_key, sumsOf(r));
    const items = groups.map((g) => {
      const cur = by[0].get(g.id) ?? zeroSums();
      const withPending = { ...cur, answers: cur.answers + (pending.get(g.id) ?? 0) };
      return {
        id: g.id === NO_GROUP ? ('none' as const) : g.id,
        name: g.name,
        prompts: g.prompts,
        ...headline(withPending, res.previous ? (by[1].get(g.id) ?? zeroSums()) : null, info),
      };
    });
    return corrected({ context, items, next_cursor: null, truncated: false, total: items.length });
  },
});

const promptItem = z
  .object({
    prompt: z.object({ id: uuid, text: z.string(), language: z.string().describe('ISO 639-1.'), ...brandedFields }),
    all_engines: headlineSchema.describe('The prompt’s headline metrics over every engine.'),
    engines: z
      .array(headlineSchema.extend({ engine: engineRefSchema }))
      .describe('Per AI engine: every configured engine in its configured order, then any other engine that answered in the window.'),
  })
  .meta({
    id: 'prompt_metrics',
    description: 'One prompt of the group at question grain, with its headline metrics over every engine and per engine.',
  });

export const groupPromptListSchema = figureListOf(
  promptItem,
  'group_prompt_list',
  'Prompts of one group (or of none) at question grain, with per-engine metrics over the window; ordered by creation, paged by limit and offset on a single page (next_cursor null). A page too large for one response holds fewer than limit prompts (truncated true): the next page starts at offset + the items returned.',
);

type PromptRow = Sums & { period: number; prompt_id: string; engine: string };
/** The order of a row's values as api_fig_group_prompts sends them (shared/admin/sql/functions/figures.sql). */
export const PROMPT_ROW_COLUMNS = ['period', 'prompt_id', 'engine', ...MEASURES] as const satisfies readonly (keyof PromptRow)[];

interface PromptSums {
  /** Per period (0 the window, 1 its comparison), per engine. */
  periods: [Map<string, Sums>, Map<string, Sums>];
  /** Answers of the window's runs still extracting, per engine. */
  pending: Map<string, number>;
}

/**
 * What a prompt of the page weighs per engine of the analysis, and the page size that stays within what
 * every assistant host shows whole (ASSISTANT_DEFAULT_CHARS) at six engines: quoted by the description,
 * held to the measurement by the 1-year reliability test; the MCP tool's default page.
 */
export const GROUP_PROMPT_SIZE = { engineBytes: 2200, engines: 6, limit: 2 } as const;

export const listGroupPrompts = defineRead({
  name: 'list_group_prompts',
  family: 'figures',
  path: '/analyses/{analysis}/groups/{group}/prompts',
  summary: 'Prompts of a group with per-engine metrics',
  description:
    'The prompts in one group now, each with its headline figures over all engines and per engine. Use it for per-prompt figures. ' +
    `Paged by limit and offset in creation order; next page at offset + items returned. A prompt weighs about ${GROUP_PROMPT_SIZE.engineBytes / 1000} KB per engine, so a large page can exceed what an assistant shows whole: at ${GROUP_PROMPT_SIZE.engines} engines ask for at most ${GROUP_PROMPT_SIZE.limit}.`,
  input: z
    .strictObject({
      analysis: analysisParam,
      group: z.string().describe('A group id from list_groups, or none: the prompts in no group.'),
      ...figureWindow,
      limit: limitParam(200, 50),
      offset: offsetParam('Prompts'),
    })
    .superRefine(checkWindow),
  output: groupPromptListSchema,
  errors: ['analysis_not_found', 'not_found', 'invalid_request'],
  run: async (ctx, input) => {
    const none = input.group === 'none';
    if (!none && !isUuid(input.group)) throw new NotFound('group');
    const raw = await callFigures<
      | { found: false; common: CommonJson }
      | {
          found: true;
          common: CommonJson;
          total: number;
          prompts: Array<{ id: string; text: string; language: string; branded: boolean; branded_source: BrandedSource }>;
          rows: unknown[][] | null;
          pending: Record<string, number> | null;
        }
    >(ctx, 'api_fig_group_prompts', input, 'last-run', [
      { value: none ? null : input.group.toLowerCase(), type: 'uuid' },
      { value: none, type: 'boolean' },
      { value: input.limit, type: 'integer' },
      { value: input.offset, type: 'integer' },
    ]);
    if (!raw.found) throw new NotFound('group');
    const { context, res, info } = loadCommon(raw.common);
    const prompts = raw.prompts;
    const totalPrompts = raw.total;
    // Per prompt of the page: its engines' sums in each period, and the answers of runs still extracting.
    const byPrompt = new Map<string, PromptSums>();
    const slot = (id: string): PromptSums => {
      let s = byPrompt.get(id);
      if (!s) {
        s = { periods: [new Map(), new Map()], pending: new Map() };
        byPrompt.set(id, s);
      }
      return s;
    };
    for (const r of fromArrays<PromptRow>(PROMPT_ROW_COLUMNS, raw.rows))
      ofPeriod(slot(r.prompt_id).periods, r.period).set(r.engine, sumsOf(r));
    // Keyed "prompt|engine": a prompt id is a uuid, so the first bar ends it whatever the engine key holds.
    for (const [key, n] of Object.entries(raw.pending ?? {})) {
      const bar = key.indexOf('|');
      slot(key.slice(0, bar)).pending.set(key.slice(bar + 1), n);
    }
    const items = prompts.map((pr) => {
      const { periods, pending } = slot(pr.id);
      const [now, before] = periods;
      const seen = new Set(info.engines);
      for (const e of now.keys()) seen.add(e);
      for (const e of pending.keys()) seen.add(e);
      const all = zeroSums();
      const allPrev = zeroSums();
      const engines = [...seen].map((engine) => {
        const cur = sumsOf(now.get(engine) ?? {});
        cur.answers += pending.get(engine) ?? 0;
        const prev = before.get(engine) ?? zeroSums();
        accumulate(all, cur);
        accumulate(allPrev, prev);
        return { engine: engineRef(info, engine), ...headline(cur, res.previous ? prev : null, info) };
      });
      return {
        prompt: { id: pr.id, text: pr.text, language: pr.language, branded: pr.branded, branded_source: pr.branded_source },
        all_engines: headline(all, res.previous ? allPrev : null, info),
        engines,
      };
    });
    // Prompts x engines tested at once: the page's flags corrected together (Benjamini–Hochberg).
    return corrected({
      context,
      items,
      next_cursor: null,
      truncated: input.offset + items.length < totalPrompts,
      total: totalPrompts,
    });
  },
  // The prompts kept are the page: their tests corrected together again, the rest left for the next page.
  cut: (reply, items) => corrected({ ...reply, items: reply.items.slice(0, items), truncated: true }),
});
