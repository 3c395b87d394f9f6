import { figureListOf, headlineSchema } from '../contracts/figures.js';
import { engineRef as engineRefSchema } from '../contracts/rates.js';
import { defineRead } from '../types.js';
import { figureInput } from './inputs.js';
import { type CommonJson, callFigures, engineOrder, engineRef, headline, loadCommon, zeroSums } from './load.js';

const engineItem = headlineSchema
  .extend({ engine: engineRefSchema })
  .meta({ id: 'engine_metrics', description: 'Headline metrics of one AI engine.' });

export const engineListSchema = figureListOf(
  engineItem,
  'engine_list',
  'Headline metrics per AI engine over the window: every configured engine, plus any other engine seen in the window. Single page.',
);

export const listEngines = defineRead({
  name: 'list_engines',
  family: 'figures',
  path: '/analyses/{analysis}/engines',
  summary: 'Headline metrics per AI engine',
  description: 'The headline figures broken down per AI engine, configured engines first. Use it to compare engines.',
  input: figureInput,
  output: engineListSchema,
  errors: ['analysis_not_found', 'invalid_request'],
  run: async (ctx, input) => {
    const { common } = await callFigures<{ common: CommonJson }>(ctx, 'api_fig_metrics', input, 'last-run');
    const { context, engines, res, info } = loadCommon(common);
    const items = [...engines[0].entries()].sort(engineOrder(info)).map(([key, cur]) => ({
      engine: engineRef(info, key),
      ...headline(cur, res.previous ? (engines[1].get(key) ?? zeroSums()) : null, info),
    }));
    return { context, items, next_cursor: null, truncated: false, total: items.length };
  },
});
