import { contextSchema, headlineSchema } from '../contracts/figures.js';
import * as z from '../contracts/zod.js';
import { defineRead } from '../types.js';
import { figureInput } from './inputs.js';
import { type CommonJson, callFigures, headline, loadCommon, total } from './load.js';

export const metricsSchema = z
  .object({ context: contextSchema, metrics: headlineSchema })
  .meta({ id: 'metrics', description: 'Headline metrics of the analysis over the window, with their comparison.' });

export const getMetrics = defineRead({
  name: 'get_metrics',
  family: 'figures',
  path: '/analyses/{analysis}/metrics',
  summary: 'Headline metrics over a window',
  description:
    'Headline figures of the tracked brand: visibility, share of voice, average position, sentiment and source share, each with previous value, delta and (rates) significance. Use it first, for how the brand is doing and how that changed.',
  input: figureInput,
  output: metricsSchema,
  errors: ['analysis_not_found', 'invalid_request'],
  run: async (ctx, input) => {
    const { common } = await callFigures<{ common: CommonJson }>(ctx, 'api_fig_metrics', input, 'last-run');
    const { context, engines, res, info } = loadCommon(common);
    return { context, metrics: headline(total(engines[0]), res.previous ? total(engines[1]) : null, info) };
  },
});
