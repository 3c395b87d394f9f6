import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { reads as registeredReads } from '#shared/reads/registry.js';
import type { LocalApi } from '../../local/stack.js';
import { addCodeSamples } from '../../scripts/openapi/code-samples.js';
import { manifest, startTestApi } from '../support/api.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..');

/**
 * The TypeScript request samples of the reference page (`x-codeSamples` of openapi.json), against the
 * client's sources rather than its build, so that they are checked on a clean clone too: `@geo-api/client`
 * mapped to clients/typescript/src, each sample compiled under `strict`, then run on the local stack.
 */
describe('the TypeScript samples of the reference page', () => {
  let dir: string;
  let api: LocalApi;
  let samples: Array<{ id: string; source: string }>;
  beforeAll(async () => {
    // The samples as the document's build adds them (test/openapi holds openapi.json to that build).
    const doc = addCodeSamples(JSON.parse(await readFile(join(root, 'openapi', 'openapi.json'), 'utf8')));
    samples = Object.values(doc.paths as Record<string, Record<string, any>>)
      .flatMap((item) => Object.values(item))
      .flatMap((op) =>
        ((op['x-codeSamples'] ?? []) as Array<{ lang: string; source: string }>)
          .filter((s) => s.lang === 'TypeScript')
          .map((s) => ({ id: op.operationId as string, source: s.source })),
      );
    dir = await mkdtemp(join(tmpdir(), 'geo-ts-samples-'));
    await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
          types: [],
          strict: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          skipLibCheck: true,
          paths: { '@geo-api/client': [join(root, 'clients', 'typescript', 'src', 'index.ts')] },
        },
        include: ['*.mts'],
      }),
    );
    for (const { id, source } of samples) await writeFile(join(dir, `${id}.mts`), source);
    api = await startTestApi();
  });
  afterAll(async () => {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('every read has one; all compile under strict against the client', async () => {
    expect(samples.length).toBe(registeredReads.length);
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const compiled = await run(process.execPath, [tsc, '-p', dir]).catch((e: { stdout: string }) => e);
    expect(compiled.stdout).toBe('');
  }, 120_000);

  test('each runs on the local stack and prints one value', async () => {
    // One process imports the samples one after the other (each is a module of its own, run on import):
    // a process per sample would cost a tsx start each.
    const runner = join(dir, 'run-all.mts');
    await writeFile(runner, samples.map(({ id }) => `await import('./${id}.mts');`).join('\n'));
    const tsx = join(root, 'node_modules', '.bin', 'tsx');
    const env = { ...process.env, GEO_API_KEY: manifest.keys.workspace, GEO_BASE_URL: api.baseUrl };
    const { stdout, stderr } = await run(tsx, ['--tsconfig', join(dir, 'tsconfig.json'), runner], { cwd: dir, env });
    expect(stderr).toBe('');
    const printed = stdout.trim().split('\n');
    expect(printed.length).toBe(samples.length);
    for (const [i, line] of printed.entries()) {
      expect({ id: samples[i]!.id, line }).toEqual({ id: samples[i]!.id, line: expect.stringMatching(/^(?!undefined$|null$)\S.*$/) });
    }
  }, 180_000);
});
