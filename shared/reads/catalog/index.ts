import type { ReadDef } from '../types.js';
import { getAnswer, listAnswers } from './answers.js';
import { listPrompts } from './prompts.js';
import { getRun, listRuns } from './runs.js';

/** The catalog family's part of the read table: prompts, runs, answers. */
export const catalogReads: readonly ReadDef[] = [listPrompts, listRuns, getRun, listAnswers, getAnswer];
