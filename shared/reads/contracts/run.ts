import { timestamp, uuid } from './common.js';
import * as z from './zod.js';

// The lifecycle is that of shared/admin/sql/migrations/002_measurements.sql; say it where callers look.
export const runState = z
  .enum(['collecting', 'extracting', 'finished', 'failed'])
  .describe(
    'State of the run. collecting: engines are being asked; extracting: collection ended (collected_at set, the run counts as a finished collection) and brands and sources are being extracted from the answers; finished: extraction ended (finished_at set), figures are measured; failed: the run stopped. Transitions: collecting -> extracting -> finished; any state -> failed. finished and failed are final.',
  );

/**
 * A run as the other resources name it: the figure context's run and comparison run, an analysis's
 * latest run, and the head of a listed run (run_summary) and of a run read on its own (run), which
 * extend it. One named part, so its fields and their meaning are written once.
 */
export const runRef = z
  .object({
    id: uuid,
    state: runState,
    started_at: timestamp.describe('When collection started.'),
    collected_at: timestamp.nullable().describe('When collection ended; null while collecting (or if the run failed before).'),
    finished_at: timestamp.nullable().describe('When extraction ended; null until then (collected but not extracted: extraction is late).'),
  })
  .meta({ id: 'run_ref', description: 'A collection run: identifier, state and times.' });
