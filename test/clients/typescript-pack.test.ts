import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { LocalApi } from '../../local/stack.js';
import { manifest, startTestApi } from '../support/api.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..');
const pkgDir = join(root, 'clients', 'typescript');

/**
 * A consumer of the tarball, compiled under `strict` with only the DOM and ES libraries (no @types/node):
 * the shipped declarations must stand on their own. The `@ts-expect-error` lines fail the compile if the
 * types they probe were `any`.
 */
const CONSUMER = `import { createClient, GeoApiError, type ApiErrorCode, type ReadItem, type Schema } from '@geo-api/client';

const geo = createClient();
const me = await geo.getMe();
const prefix: string = me.key.prefix;
const analysis = 'acme-core';
const page = await geo.listAnswers({ analysis, window: '30d' });
const first: string | undefined = page.items[0]?.id;
let count = 0;
for await (const a of geo.paginate('listAnswers', { analysis, window: 'all' })) {
  const item: ReadItem<'listAnswers'> = a;
  const captured: string = item.captured_at;
  count += captured.length > 0 ? 1 : 0;
}
const metrics = await geo.getMetrics({ analysis, window: '7d' });
const low: number | undefined = metrics.metrics.visibility.ci95?.low;
const ref: Schema<'answer_ref'> | undefined = page.items[0];
try {
  await geo.getAnalysis({ analysis: 'no-such-analysis' });
} catch (error) {
  if (error instanceof GeoApiError) {
    const code: string = error.code;
    const known: ApiErrorCode | 'network_error' | 'timeout' | 'unexpected_response' = error.code;
    console.log(JSON.stringify({ code, known, status: error.status, requestId: error.requestId }));
  }
}
// Never run: only compiled, each line must be a type error.
async function typeProbes(): Promise<number> {
  // @ts-expect-error: a read that does not exist
  await geo.getEverything();
  // @ts-expect-error: a window the read does not take
  await geo.listAnswers({ analysis, window: 'last-run' });
  // @ts-expect-error: the analysis is required
  await geo.getMetrics({});
  // @ts-expect-error: not a list read
  geo.paginate('getMe', {});
  // @ts-expect-error: an id is a string
  const wrong: number = me.workspace.id;
  return wrong;
}
console.log(JSON.stringify({ prefix, first: typeof first, count, low: typeof low, ref: typeof ref, probes: typeof typeProbes, budget: geo.rateLimit }));
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: false,
    outDir: 'out',
  },
  include: ['index.ts'],
};

describe('the npm package', () => {
  let dir: string;
  let api: LocalApi;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'geo-client-pack-'));
    api = await startTestApi();
  });
  afterAll(async () => {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('npm pack gives a tarball that installs into an empty project, compiles under strict, runs, and links geo', async () => {
    // prepack builds dist/ from src/ (and the types from openapi.json) before packing.
    const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: pkgDir, maxBuffer: 1 << 24 });
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    const files = info!.files.map((f) => f.path).sort();
    expect(files).toEqual(
      expect.arrayContaining([
        'README.md',
        'package.json',
        'bin/geo.js',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/cli.js',
        'dist/schema.d.ts',
      ]),
    );
    // Sources, the generator and tests stay out of the tarball.
    expect(files.filter((f) => !f.startsWith('dist/') && !['README.md', 'package.json', 'bin/geo.js'].includes(f))).toEqual([]);

    const project = join(dir, 'consumer');
    await run('mkdir', ['-p', project]);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await run('npm', ['install', join(dir, info!.filename), '--offline', '--no-audit', '--no-fund'], { cwd: project });
    const installed = JSON.parse(await readFile(join(project, 'node_modules', '@geo-api', 'client', 'package.json'), 'utf8'));
    expect(installed.dependencies ?? {}).toEqual({});

    await writeFile(join(project, 'index.ts'), CONSUMER);
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const compiled = await run(process.execPath, [tsc, '-p', project]).catch((e: { stdout: string }) => e);
    expect(compiled.stdout).toBe('');

    // The compiled consumer against the local stack: the tarball works, not only its types.
    const env = { ...process.env, GEO_API_KEY: manifest.keys.workspace, GEO_BASE_URL: api.baseUrl };
    const out = await run(process.execPath, [join(project, 'out', 'index.js')], { cwd: project, env });
    const [refusal, summary] = out.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(refusal).toMatchObject({ code: 'analysis_not_found', known: 'analysis_not_found', status: 404 });
    expect(summary.count).toBeGreaterThan(0);
    expect(summary.budget.limit).toBeGreaterThan(0);

    // npm linked the bin: `npx geo` in the consumer is the packaged CLI.
    const help = await run(join(project, 'node_modules', '.bin', 'geo'), ['--help'], { env });
    expect(help.stdout).toContain('Usage: geo <read>');
    expect(help.stdout).toContain('list-answers --analysis <string>');
  }, 240_000);
});
