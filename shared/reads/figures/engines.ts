import { ENGINES_PER_ANALYSIS } from '../contracts/common.js';
import { figureListOf, headlineSchema, segmentsSchema } from '../contracts/figures.js';
import { engineRef as engineRefSchema } from '../contracts/rates.js';
import { defineRead } from '../types.js';
import { segmentedInput } from './inputs.js';
import {
  type CommonJson,
  callFigures,
  corrected,
  engineOrder,
  engineRef,
  headline,
  loadCommon,
  type SegmentsJson,
  segmentHeadlines,
  segmentSums,
  zeroSums,
} from './load.js';

const engineItem = headlineSchema
  .extend({ engine: engineRefSchema, segments: segmentsSchema })
  .meta({ id: 'engine_metrics', description: 'Headline metrics of one AI engine.' });

export const engineListSchema = figureListOf(
  engineItem,
  'engine_list',
  'Headline metrics per AI engine over the window: every configured engine, plus any other engine seen in the window. Single page.',
  {},
  undefined,
  ENGINES_PER_ANALYSIS,
);

export const listEngines = defineRead({
  name: 'list_engines',
  family: 'figures',
  path: '/analyses/{analysis}/engines',
  summary: 'Headline metrics per AI engine',
  description: 'The headline figures per AI engine, configured engines first. Use it to compare engines.',
  input: segmentedInput,
  output: engineListSchema,
  errors: ['analysis_not_found', 'invalid_request'],
  run: async (ctx, input) => {
    const { common, segments } = await callFigures<{ common: CommonJson; segments: SegmentsJson | null }>(
      ctx,
      'api_fig_engines',
      input,
      'last-run',
      [{ value: input.segments === 'branded', type: 'boolean' }],
    );
    const { context, engines, res, info } = loadCommon(common);
    const seg = segments && segmentSums(segments);
    const items = [...engines[0].entries()].sort(engineOrder(info)).map(([key, cur]) => ({
      engine: engineRef(info, key),
      ...headline(cur, res.previous ? (engines[1].get(key) ?? zeroSums()) : null, info),
      segments: seg ? segmentHeadlines(seg, res.previous !== null, info, (e) => e === key) : null,
    }));
    return corrected({ context, items, next_cursor: null, truncated: false, total: items.length });
  },
});
