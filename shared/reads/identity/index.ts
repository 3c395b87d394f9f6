import type { ReadDef } from '../types.js';
import { getAnalysis, listAnalyses } from './analyses.js';
import { me } from './me.js';

/** The identity family's part of the read table; its Lambda bundles this and nothing of the others. */
export const identityReads: readonly ReadDef[] = [me, listAnalyses, getAnalysis];
