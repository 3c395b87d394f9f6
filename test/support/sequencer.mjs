import { readFileSync } from 'node:fs';
import Sequencer from '@jest/test-sequencer';

/**
 * The pragma a test file's opening comment carries when it spends most of its time waiting on the clock
 * (a budget minute running out) rather than working.
 */
export const STARTS_FIRST = '@starts-first';

const HEAD_BYTES = 4096;

/** Whether the file's first few kilobytes (its imports and opening comment) carry the pragma. */
export function startsFirst(path) {
  return readFileSync(path, 'utf8').slice(0, HEAD_BYTES).includes(STARTS_FIRST);
}

/**
 * jest's own order (failed files first, then the slowest of the last run, or the largest files when jest
 * has no timings yet, as on a fresh clone), with the files that mostly wait moved to the front. Started
 * last, such a file's wait is the run's tail with the other workers idle; started first, its wait
 * overlaps the other files' work.
 */
export default class WaitersFirst extends Sequencer {
  async sort(tests) {
    const ordered = await super.sort(tests);
    const first = ordered.filter((t) => startsFirst(t.path));
    return [...first, ...ordered.filter((t) => !first.includes(t))];
  }
}
