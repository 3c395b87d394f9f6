import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, test } from '@jest/globals';

/**
 * The order jest starts the test files in (test/support/sequencer.mjs): the files whose wait is mostly on
 * the clock first, then jest's own order, which on a fresh clone (no timings of a last run) is the
 * largest file first.
 */
interface FakeTest {
  path: string;
  context: { config: { cache: boolean }; hasteFS: { getSize: (path: string) => number } };
}

interface SequencerModule {
  default: new (options: object) => { sort: (tests: FakeTest[]) => Promise<FakeTest[]> };
  startsFirst: (path: string) => boolean;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const sequencer = (): Promise<SequencerModule> => import(pathToFileURL(join(ROOT, 'test/support/sequencer.mjs')).href);

const testFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );

const relative = (path: string) => path.slice(ROOT.length + 1);

describe('the test sequencer', () => {
  test('starts the files that wait out a budget minute first, then the rest largest first', async () => {
    const { default: WaitersFirst } = await sequencer();
    const hasteFS = { getSize: (path: string) => statSync(path).size };
    const files = testFiles(join(ROOT, 'test'));
    const tests = files.map((path) => ({ path, context: { config: { cache: false }, hasteFS } }));
    const sorted = (await new WaitersFirst({}).sort(tests)).map((t) => t.path);

    expect([...sorted].sort()).toEqual([...files].sort());
    expect(sorted.slice(0, 2).map(relative).sort()).toEqual(['test/clients/python.test.ts', 'test/clients/typescript-budget.test.ts']);
    const rest = sorted.slice(2).map((path) => statSync(path).size);
    expect(rest).toEqual([...rest].sort((a, b) => b - a));
  });

  test('reads the pragma from the file itself', async () => {
    const { startsFirst } = await sequencer();
    expect(startsFirst(join(ROOT, 'test/clients/typescript-budget.test.ts'))).toBe(true);
    expect(startsFirst(join(ROOT, 'test/unit/sequencer.test.ts'))).toBe(false);
  });
});
