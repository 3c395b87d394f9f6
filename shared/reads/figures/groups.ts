import * as z from 'zod';
import { analysisParam, limitParam, uuid } from '../../contracts/common.js';
import { NotFound } from '../../errors.js';
import { engineRef as engineRefSchema, figureListOf, headlineSchema } from '../../figures/contracts.js';
import { figureInput, figureWindow, WINDOW_NOTE } from '../../figures/inputs.js';
import { addSums, engineRef, headline, loadFigures, MEASURE_COLS, SUM_MEASURES, zeroSums, type Sums } from '../../figures/load.js';
import { Params, segments } from '../../figures/window.js';
import { checkWindow } from '../../windows.js';
import { defineRead, type ReadContext } from '../types.js';

const NO_GROUP = '00000000-0000-0000-0000-000000000000';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
    description: 'A prompt group with its headline metrics (prompts counted in the group they belonged to when their run was extracted).',
  });

export const groupListSchema = figureListOf(
  groupItem,
  'group_list',
  'Prompt groups of the analysis with their headline metrics over the window, by name; the pseudo-group none (prompts in no group) last. Single page.',
);

/** Volumes of runs still extracting, which the aggregates do not hold yet: answers per key. */
async function pendingAnswers(ctx: ReadContext, runs: string[], key: string, where = 'true', extra: unknown[] = []): Promise<Map<string, number>> {
  if (runs.length === 0) return new Map();
  const rows = await ctx.db.query<{ k: string; n: number }>(
    `SELECT ${key} AS k, count(*)::int AS n
       FROM answers x JOIN prompts p ON p.id = x.prompt_id
      WHERE x.run_id = ANY ($1::uuid[]) AND ${where}
      GROUP BY 1`,
    [runs, ...extra],
  );
  return new Map(rows.map((r) => [r.k, r.n]));
}

export const listGroups = defineRead({
  name: 'list_groups',
  family: 'figures',
  path: '/analyses/{analysis}/groups',
  summary: 'Prompt groups with their metrics',
  description: 'Every prompt group (and none: the prompts in no group) with its headline figures.' + WINDOW_NOTE,
  input: figureInput,
  output: groupListSchema,
  errors: ['analysis_not_found', 'invalid_request'],
  run: async (ctx, input) => {
    const { context, res, info, periods, unfinishedRuns } = await loadFigures(ctx, input, 'last-run');
    const p = new Params(ctx.analysis!.id);
    const [rows, groups, pending] = await Promise.all([
      ctx.db.query<Sums & { period: number; group_key: string }>(
        `SELECT period, group_key, ${SUM_MEASURES}
           FROM (${segments(p, periods, { fine: 'fig_run_group', month: 'fig_month_group', cols: `group_key, ${MEASURE_COLS}` })}) s
          GROUP BY period, group_key`,
        p.values,
      ),
      ctx.db.query<{ id: string; name: string | null; prompts: number }>(
        `SELECT g.id, g.name, (SELECT count(*)::int FROM prompts p WHERE p.analysis_id = g.analysis_id AND p.group_id = g.id) AS prompts
           FROM prompt_groups g WHERE g.analysis_id = $1
         UNION ALL
         SELECT '${NO_GROUP}'::uuid, NULL, (SELECT count(*)::int FROM prompts p WHERE p.analysis_id = $1 AND p.group_id IS NULL)
         ORDER BY 2 NULLS LAST, 1`,
        [ctx.analysis!.id],
      ),
      pendingAnswers(ctx, unfinishedRuns, `coalesce(p.group_id, '${NO_GROUP}'::uuid)::text`),
    ]);
    const by = [new Map<string, Sums>(), new Map<string, Sums>()];
    for (const r of rows) by[r.period]!.set(r.group_key, addSums(zeroSums(), r));
    const items = groups.map((g) => {
      const cur = by[0]!.get(g.id) ?? zeroSums();
      const withPending = { ...cur, answers: cur.answers + (pending.get(g.id) ?? 0) };
      return {
        id: g.id === NO_GROUP ? ('none' as const) : g.id,
        name: g.name,
        prompts: g.prompts,
        ...headline(withPending, res.previous ? (by[1]!.get(g.id) ?? zeroSums()) : null, info),
      };
    });
    return { context, items, next_cursor: null, truncated: false, total: items.length };
  },
});

const promptItem = z
  .object({
    prompt: z.object({ id: uuid, text: z.string(), language: z.string().describe('ISO 639-1.') }),
    all_engines: headlineSchema.describe('The prompt’s headline metrics over every engine.'),
    engines: z
      .array(headlineSchema.extend({ engine: engineRefSchema }))
      .describe('Per AI engine: every configured engine in its configured order, then any other engine that answered in the window.'),
  })
  .meta({ id: 'prompt_metrics', description: 'One prompt of the group at question grain, with its headline metrics over every engine and per engine.' });

export const groupPromptListSchema = figureListOf(
  promptItem,
  'group_prompt_list',
  'Prompts of one group (or of none) at question grain, with per-engine metrics over the window; ordered by creation, paged by limit and offset on a single page (next_cursor null).',
);

export const listGroupPrompts = defineRead({
  name: 'list_group_prompts',
  family: 'figures',
  path: '/analyses/{analysis}/groups/{group}/prompts',
  summary: 'Prompts of a group with per-engine metrics',
  description:
    'The prompts of one group (group = none: the prompts in no group), each with its headline figures over all engines and per engine: the only per-prompt figures. Paged by limit and offset in creation order; a prompt weighs about 1 KB per engine, so keep pages small. An unknown group answers 404 not_found.' +
    WINDOW_NOTE,
  input: z
    .strictObject({
      analysis: analysisParam,
      group: z.string().describe('A group identifier from the groups read, or none for the prompts in no group.'),
      ...figureWindow,
      limit: limitParam(200, 50),
      offset: z.number().int().min(0).max(100000).default(0).describe('Prompts to skip, integer 0..100000. Default 0.'),
    })
    .superRefine(checkWindow),
  output: groupPromptListSchema,
  errors: ['analysis_not_found', 'not_found', 'invalid_request'],
  run: async (ctx, input) => {
    const analysisId = ctx.analysis!.id;
    const none = input.group === 'none';
    if (!none && !UUID.test(input.group)) throw new NotFound('group');
    const groupCond = none ? 'p.group_id IS NULL' : 'p.group_id = $2::uuid';
    const groupParams = none ? [analysisId] : [analysisId, input.group.toLowerCase()];
    const [exists, page, loaded] = await Promise.all([
      none
        ? Promise.resolve([{ n: 1 }])
        : ctx.db.query<{ n: number }>('SELECT 1 AS n FROM prompt_groups WHERE analysis_id = $1 AND id = $2::uuid', groupParams),
      ctx.db.query<{ id: string; text: string; language: string; total: number }>(
        `SELECT p.id, p.text, p.language, (SELECT count(*)::int FROM prompts p WHERE p.analysis_id = $1 AND ${groupCond}) AS total
           FROM (SELECT 1) one LEFT JOIN LATERAL (
             SELECT p.id, p.text, p.language, p.created_at FROM prompts p WHERE p.analysis_id = $1 AND ${groupCond}
              ORDER BY p.created_at, p.id LIMIT ${input.limit} OFFSET ${input.offset}) p ON true
          ORDER BY p.created_at, p.id`,
        groupParams,
      ),
      loadFigures(ctx, input, 'last-run'),
    ]);
    if (exists.length === 0) throw new NotFound('group');
    const { context, res, info, periods, unfinishedRuns } = loaded;
    const prompts = page.filter((r) => r.id !== null);
    const totalPrompts = page[0]?.total ?? 0;
    const ids = prompts.map((r) => r.id);
    const p = new Params(analysisId);
    const idsParam = p.add(ids);
    const [rows, pending] = await Promise.all([
      ids.length === 0
        ? Promise.resolve([])
        : ctx.db.query<Sums & { period: number; prompt_id: string; engine: string }>(
            `SELECT period, prompt_id, engine, ${SUM_MEASURES}
               FROM (${segments(p, periods, {
                 fine: 'fig_run_prompt',
                 month: 'fig_month_prompt',
                 cols: `prompt_id, engine, ${MEASURE_COLS}`,
                 where: `prompt_id = ANY (${idsParam}::uuid[])`,
               })}) s
              GROUP BY period, prompt_id, engine`,
            p.values,
          ),
      ids.length === 0 ? Promise.resolve(new Map<string, number>()) : pendingAnswers(ctx, unfinishedRuns, `x.prompt_id::text || '|' || x.engine`, 'x.prompt_id = ANY ($2::uuid[])', [ids]),
    ]);
    const by = [new Map<string, Sums>(), new Map<string, Sums>()];
    for (const r of rows) by[r.period]!.set(`${r.prompt_id}|${r.engine}`, addSums(zeroSums(), r));
    const items = prompts.map((pr) => {
      const seen = new Set(info.engines);
      for (const k of [...by[0]!.keys(), ...pending.keys()]) if (k.startsWith(`${pr.id}|`)) seen.add(k.slice(pr.id.length + 1));
      const keys = [...seen];
      let all = zeroSums();
      let allPrev = zeroSums();
      const engines = keys.map((engine) => {
        const k = `${pr.id}|${engine}`;
        const cur = addSums(by[0]!.get(k) ?? zeroSums(), { answers: pending.get(k) ?? 0 });
        const prev = by[1]!.get(k) ?? zeroSums();
        all = addSums(all, cur);
        allPrev = addSums(allPrev, prev);
        return { engine: engineRef(info, engine), ...headline(cur, res.previous ? prev : null, info) };
      });
      return {
        prompt: { id: pr.id, text: pr.text, language: pr.language },
        all_engines: headline(all, res.previous ? allPrev : null, info),
        engines,
      };
    });
    return {
      context,
      items,
      next_cursor: null,
      truncated: input.offset + items.length < totalPrompts,
      total: totalPrompts,
    };
  },
});
