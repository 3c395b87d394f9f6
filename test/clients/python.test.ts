import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createClient, toCsv, toRows } from '../../clients/typescript/src/index.js';
import type { LocalApi } from '../../local/stack.js';
import { manifest, readerUrl, startTestApi } from '../support/api.js';
import { freshVenv, PYTHON_CLIENT, type PythonVenv, pythonUnavailable, runPython } from './python-venv.js';

/**
 * The Python client (clients/python) as a user gets it: pip installs it offline into a fresh virtual
 * environment, and its own unittest suite (clients/python/tests) runs against the local stack: every
 * read, paging through the largest analysis, each refusal as its typed error, a small budget waited out.
 * The APIs are started here and passed by environment (GEO_BASE_URL, the demo keys and slugs), as a
 * user's program gets them.
 * @starts-first: its suite waits a budget minute out (test/support/sequencer.mjs).
 */
const unavailable = pythonUnavailable();
if (unavailable) console.warn(`test/clients/python.test.ts skipped: ${unavailable}`);

(unavailable ? describe.skip : describe)(`the Python client${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let venv: PythonVenv;
  const apis: LocalApi[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    venv = await freshVenv();
    // A store that refuses the TLS the service asks for: a configuration fault, answered internal_error.
    const tls = new URL(readerUrl());
    tls.searchParams.set('sslmode', 'verify-full');
    const [api, disabled, budgetDown, storeDown, misconfigured] = await Promise.all([
      startTestApi(),
      startTestApi({ API_DISABLED: 'true', API_DISABLED_RETRY_AFTER: '120' }),
      // Nothing listens on port 9 (discard): the budget counter, then the store, cannot be reached.
      startTestApi({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', BUDGET_TIMEOUT_MS: '200' }),
      startTestApi({ DATABASE_URL: 'postgres://geo_reader@127.0.0.1:9/geo' }),
      startTestApi({ DATABASE_URL: tls.toString(), LOG_LEVEL: 'SILENT' }),
    ]);
    apis.push(api, disabled, budgetDown, storeDown, misconfigured);
    env = {
      GEO_BASE_URL: api.baseUrl,
      GEO_TEST_KEYS: JSON.stringify(manifest.keys),
      GEO_TEST_ANALYSES: JSON.stringify(manifest.analyses),
      GEO_TEST_DISABLED_URL: disabled.baseUrl,
      GEO_TEST_BUDGET_DOWN_URL: budgetDown.baseUrl,
      GEO_TEST_STORE_DOWN_URL: storeDown.baseUrl,
      GEO_TEST_MISCONFIGURED_URL: misconfigured.baseUrl,
    };
  }, 120_000);
  afterAll(async () => {
    await Promise.all(apis.map((a) => a.close()));
    await venv?.remove();
  });

  test('pip installs it offline into a fresh virtual environment, from the wheel its own backend builds', async () => {
    expect(venv.installLog).toMatch(/Successfully installed geo[-_]api-0\.1\.0/);
    const where = await runPython(venv.python, ['-c', 'import geo_api, sys; print(geo_api.__file__); print(geo_api.__version__)'], {
      cwd: '/',
    });
    expect(where.code).toBe(0);
    // Imported from the environment's site-packages, not from the source tree.
    const [file, version] = where.stdout.trim().split('\n');
    expect(file).toMatch(/venv\/lib\/python3\.\d+\/site-packages\/geo_api\/__init__\.py$/);
    expect(file?.startsWith(PYTHON_CLIENT)).toBe(false);
    expect(version).toBe('0.1.0');
  });

  test("to_rows and to_csv give the TypeScript client's rows and CSV for the same answers, byte for byte", async () => {
    const geo = createClient({ apiKey: manifest.keys.workspace, baseUrl: env.GEO_BASE_URL });
    const analysis = manifest.analyses.collected;
    const groups = await geo.listGroups({ analysis, window: '30d' });
    const group = groups.items.find((g) => g.prompts > 0)!.id;
    const answer = (await geo.listAnswers({ analysis, window: '30d', limit: 1 })).items[0]!.id;
    // Every figure read (two of them with segments), and the other lists and objects besides.
    const answers: Record<string, unknown> = {
      getMetrics: await geo.getMetrics({ analysis, window: '30d', segments: 'branded' }),
      getMetricsTimeseries: await geo.getMetricsTimeseries({ analysis, window: '14d' }),
      listEngines: await geo.listEngines({ analysis, window: '30d' }),
      listCompetitors: await geo.listCompetitors({ analysis, window: '30d', segments: 'branded' }),
      listSources: await geo.listSources({ analysis, window: '30d' }),
      listGroups: groups,
      listGroupPrompts: await geo.listGroupPrompts({ analysis, group, window: '30d' }),
      listAnswers: await geo.listAnswers({ analysis, window: '30d', limit: 5 }),
      listRuns: await geo.listRuns({ analysis, limit: 3 }),
      listAnalyses: await geo.listAnalyses(),
      getAnswer: await geo.getAnswer({ analysis, answer }),
    };
    const dir = await mkdtemp(join(tmpdir(), 'geo-rows-'));
    try {
      await writeFile(join(dir, 'answers.json'), JSON.stringify(answers));
      const script = [
        'import io, json, sys',
        'from geo_api import to_csv, to_rows',
        'out = {}',
        'for read, answer in json.load(open(sys.argv[1])).items():',
        '    rows = to_rows(answer)',
        '    text = io.StringIO(newline="")',
        '    to_csv(rows, text)',
        '    out[read] = {"columns": [list(r) for r in rows], "rows": rows, "csv": text.getvalue()}',
        'json.dump(out, sys.stdout)',
      ].join('\n');
      const ran = await runPython(venv.python, ['-c', script, join(dir, 'answers.json')], { cwd: dir });
      if (ran.code !== 0) throw new Error(ran.stderr);
      const python = JSON.parse(ran.stdout) as Record<string, { columns: string[][]; rows: unknown[]; csv: string }>;
      for (const [read, body] of Object.entries(answers)) {
        const rows = toRows(body);
        expect({ read, columns: python[read]!.columns }).toEqual({ read, columns: rows.map((r) => Object.keys(r)) });
        expect({ read, rows: python[read]!.rows }).toEqual({ read, rows });
        expect({ read, csv: python[read]!.csv }).toEqual({ read, csv: toCsv(rows) });
      }
      // The figure reads' rows carry their window; the competitors' begin with the tracked brand.
      expect(python.listEngines!.columns[0]!.slice(0, 3)).toEqual(['window.name', 'window.first_day', 'window.last_day']);
      expect(python.listCompetitors!.rows.length).toBe((answers.listCompetitors as { items: unknown[] }).items.length + 1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('its unittest suite passes against the local stack, nothing skipped', async () => {
    const ran = await runPython(venv.python, ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.', '-v'], { env });
    const report = ran.stderr;
    if (ran.code !== 0) throw new Error(`python -m unittest failed:\n${report}\n${ran.stdout}`);
    expect(report).toMatch(/\nOK\s*$/);
    expect(report).not.toMatch(/skipped/);
    const count = Number(/Ran (\d+) tests?/.exec(report)?.[1]);
    expect(count).toBeGreaterThanOrEqual(20);
  }, 240_000);
});
