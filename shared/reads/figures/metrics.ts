import { contextSchema, windowHeadlineSchema, windowSegmentsSchema } from '../contracts/figures.js';
import * as z from '../contracts/zod.js';
import { defineRead } from '../types.js';
import { segmentedInput } from './inputs.js';
import {
  type CommonJson,
  callFigures,
  corrected,
  headline,
  loadCommon,
  type SegmentsJson,
  type SegmentUniverseJson,
  segmentSums,
  segmentWindowHeadlines,
  total,
  type UniverseJson,
  windowHeadline,
} from './load.js';

export const metricsSchema = z
  .object({ context: contextSchema, metrics: windowHeadlineSchema, segments: windowSegmentsSchema })
  .meta({ id: 'metrics', description: 'Headline metrics of the analysis over the window, with their comparison.' });

export const getMetrics = defineRead({
  name: 'get_metrics',
  family: 'figures',
  path: '/analyses/{analysis}/metrics',
  summary: 'Headline metrics over a window',
  description:
    'Headline figures of the tracked brand: visibility, share of voice (over all brands, and over direct competitors only), average position, sentiment and source share, each with previous value, delta, significance and p-value. Use it first.',
  input: segmentedInput,
  output: metricsSchema,
  errors: ['analysis_not_found', 'invalid_request'],
  run: async (ctx, input) => {
    const { common, universe, segments, segment_universe } = await callFigures<{
      common: CommonJson;
      universe: UniverseJson;
      segments: SegmentsJson | null;
      segment_universe: SegmentUniverseJson;
    }>(ctx, 'api_fig_headline', input, 'last-run', [{ value: input.segments === 'branded', type: 'boolean' }]);
    const { context, engines, res, info } = loadCommon(common);
    const cur = total(engines[0]);
    const prev = res.previous ? total(engines[1]) : null;
    return corrected({
      context,
      metrics: windowHeadline(headline(cur, prev, info), cur, prev, universe),
      segments: segments ? segmentWindowHeadlines(segmentSums(segments), segment_universe, universe.configured, prev !== null, info) : null,
    });
  },
});
