import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createClient, type GeoClient } from '../../clients/typescript/src/index.js';
import type { LocalApi } from '../../local/stack.js';
import { manifest, startTestApi } from '../support/api.js';

const root = resolve(import.meta.dirname, '..', '..');
const analysis = manifest.analyses.collected;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** RFC 4180, read independently of the client's writer: quoted fields, doubled quotes, CRLF records. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  expect(field).toBe(''); // the text ends with a record separator
  return rows;
}

/** The value a column names in a JSON item: object keys, and array elements by what names them or by index. */
function at(item: unknown, column: string): unknown {
  let node: unknown = item;
  for (const segment of column.split('.')) {
    if (Array.isArray(node)) {
      node = node.find((e, i) => {
        const names = [e?.key, typeof e?.engine === 'string' ? e.engine : e?.engine?.key, e?.id].filter((n) => typeof n === 'string');
        return (names[0] ?? String(i)) === segment;
      });
    } else if (node && typeof node === 'object') node = (node as Record<string, unknown>)[segment];
    else return undefined;
  }
  return node;
}

function leaves(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (Array.isArray(value))
    return value.every((v) => v === null || typeof v !== 'object') ? 1 : value.reduce((n: number, v) => n + leaves(v), 0);
  if (typeof value === 'object') return Object.values(value).reduce((n: number, v) => n + leaves(v), 0);
  return 1;
}

/** Every cell is the value its column names in the JSON; every value of the JSON has its cell. */
function expectCsvOf(csv: string, items: unknown[]): string[] {
  const [header, ...rows] = parseCsv(csv);
  expect(rows.length).toBe(items.length);
  rows.forEach((row, i) => {
    const item = items[i];
    expect(row.length).toBe(header!.length);
    let filled = 0;
    header!.forEach((column, j) => {
      const cell = row[j]!;
      const value = at(item, column);
      if (cell !== '') filled += 1;
      if (value === null || value === undefined) expect({ column, cell }).toEqual({ column, cell: '' });
      else if (Array.isArray(value)) expect({ column, value: JSON.parse(cell) }).toEqual({ column, value });
      else if (typeof value === 'number') expect({ column, value: Number(cell) }).toEqual({ column, value });
      else if (typeof value === 'string' && /^[=+\-@\t\r]/.test(value)) expect({ column, cell }).toEqual({ column, cell: `'${value}` });
      else expect({ column, cell }).toEqual({ column, cell: String(value) });
    });
    expect(filled).toBe(leaves(item));
  });
  return header!;
}

/**
 * What the CSV of an answer holds, modelled apart from the client's writer: one record per item (per
 * point, or the object without its context), the answer's window on each, and list_competitors' tracked
 * brand as the first record (`tracked` true, false on the competitors).
 */
function csvRecords(answer: Record<string, unknown>): unknown[] {
  const w = (answer.context as { window?: { name: string; first_day: string | null; last_day: string | null } } | undefined)?.window;
  const head = w ? { window: { name: w.name, first_day: w.first_day, last_day: w.last_day } } : {};
  const { context: _context, ...rest } = answer;
  const list = Array.isArray(answer.items) ? answer.items : Array.isArray(answer.points) ? answer.points : [rest];
  if (answer.tracked) {
    return [{ ...head, tracked: true, ...(answer.tracked as object) }, ...list.map((item) => ({ ...head, tracked: false, ...item }))];
  }
  return list.map((item) => ({ ...head, ...item }));
}

describe('the geo command line, built, on the local stack', () => {
  let dir: string;
  let api: LocalApi;
  let geo: GeoClient;
  const env = (extra: Record<string, string | undefined> = {}) => ({
    PATH: process.env.PATH,
    GEO_API_KEY: manifest.keys.workspace,
    GEO_BASE_URL: api.baseUrl,
    ...extra,
  });
  const cli = (args: string[], environment = env()): Promise<Run> =>
    new Promise((done) => {
      execFile(
        process.execPath,
        [join(dir, 'dist', 'cli.js'), ...args],
        { env: environment, maxBuffer: 1 << 26 },
        (error, stdout, stderr) => done({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    // The package's own build (tsc with its tsconfig), into a directory of this file's, so that it never
    // races the pack test's build of dist/.
    dir = await mkdtemp(join(tmpdir(), 'geo-cli-'));
    await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    await promisify(execFile)(process.execPath, [tsc, '-p', join(root, 'clients', 'typescript'), '--outDir', join(dir, 'dist')]);
    api = await startTestApi();
    geo = createClient({ apiKey: manifest.keys.workspace, baseUrl: api.baseUrl });
  }, 120_000);
  afterAll(async () => {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('CSV for every figure read: one row per item, the window on each, intervals as columns, read back equal to the JSON', async () => {
    const groups = await geo.listGroups({ analysis, window: '30d' });
    const group = groups.items.find((g) => g.prompts > 0)!.id;
    const common = ['--analysis', analysis, '--window', '30d', '--format', 'csv'];
    const figureReads: Array<[string, string[], () => Promise<unknown>]> = [
      ['get-metrics', common, () => geo.getMetrics({ analysis, window: '30d' })],
      ['get-metrics-timeseries', common, () => geo.getMetricsTimeseries({ analysis, window: '30d' })],
      ['list-engines', common, () => geo.listEngines({ analysis, window: '30d' })],
      ['list-competitors', common, () => geo.listCompetitors({ analysis, window: '30d' })],
      [
        'list-competitors',
        [...common, '--segments', 'branded'],
        () => geo.listCompetitors({ analysis, window: '30d', segments: 'branded' }),
      ],
      ['list-sources', common, () => geo.listSources({ analysis, window: '30d' })],
      ['list-groups', common, async () => groups],
      ['list-group-prompts', [...common, '--group', group], () => geo.listGroupPrompts({ analysis, group, window: '30d' })],
    ];
    for (const [read, args, json] of figureReads) {
      const run = await cli([read, ...args]);
      expect({ read, code: run.code, stderr: run.stderr }).toEqual({ read, code: 0, stderr: '' });
      const records = csvRecords((await json()) as Record<string, unknown>);
      expect(records.length).toBeGreaterThan(0);
      const header = expectCsvOf(run.stdout, records);
      // Every row says which window it measured: rows of several windows can be stacked.
      expect({ read, head: header.slice(0, 3) }).toEqual({ read, head: ['window.name', 'window.first_day', 'window.last_day'] });
      // Rates come with their interval as two columns.
      const interval = header.find((c) => c.endsWith('.ci95.low'));
      expect({ read, interval: interval !== undefined }).toEqual({ read, interval: true });
      expect(header).toContain(interval!.replace(/low$/, 'high'));
    }
  });

  test("the competitors' CSV holds the tracked brand: its rank, share of voice and segments, told apart by a column", async () => {
    const answer = await geo.listCompetitors({ analysis, window: '30d', segments: 'branded' });
    const run = await cli(['list-competitors', '--analysis', analysis, '--window', '30d', '--segments', 'branded', '--format', 'csv']);
    expect(run.code).toBe(0);
    const [header, ...rows] = parseCsv(run.stdout);
    expect(rows.length).toBe(answer.items.length + 1);
    const cell = (row: string[], column: string) => row[header!.indexOf(column)];
    const tracked = rows.filter((row) => cell(row, 'tracked') === 'true');
    expect(tracked.length).toBe(1);
    const row = tracked[0]!;
    expect([cell(row, 'name'), Number(cell(row, 'rank')), Number(cell(row, 'share_of_voice.value'))]).toEqual([
      answer.tracked.name,
      answer.tracked.rank,
      answer.tracked.share_of_voice.value,
    ]);
    expect(Number(cell(row, 'segments.branded.share_of_voice.value'))).toBe(answer.tracked.segments!.branded.share_of_voice.value);
    expect(rows.filter((r) => cell(r, 'tracked') === 'false').map((r) => cell(r, 'name'))).toEqual(answer.items.map((c) => c.name));
    // Every brand the ranking holds is a row: ranks 1 to n, none missing.
    expect(rows.map((r) => Number(cell(r, 'rank'))).sort((a, b) => a - b)).toEqual(
      [answer.tracked.rank, ...answer.items.map((c) => c.rank)].sort((a, b) => (a ?? 0) - (b ?? 0)),
    );
  });

  test('--all pages through a list: every answer once, progress on stderr; csv and json of a cursor list', async () => {
    const { total } = await geo.listAnswers({ analysis, window: 'all', limit: 1 });
    const run = await cli(['list-answers', '--analysis', analysis, '--window', 'all', '--all', '--format', 'ndjson']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    const ids = lines.map((l) => JSON.parse(l).id as string);
    expect(ids.length).toBe(total);
    expect(new Set(ids).size).toBe(total);
    const progress = run.stderr.trim().split('\n');
    expect(progress.length).toBe(Math.ceil(total / 100));
    expect(progress.at(-1)).toBe(`geo: page ${progress.length}: ${total} of ${total} items`);

    const analyses = await geo.listAnalyses({ limit: 200 });
    const csv = await cli(['list-analyses', '--limit', '1', '--all', '--format', 'csv', '--quiet']);
    expect([csv.code, csv.stderr]).toEqual([0, '']);
    expectCsvOf(csv.stdout, analyses.items);
    const json = await cli(['list_analyses', '--all', '--quiet']);
    expect(JSON.parse(json.stdout)).toEqual(analyses.items);
  });

  test('--all on a one-page read asks its largest page: every item the API counts, whatever --limit says', async () => {
    const whole = await geo.listSources({ analysis, window: '30d', limit: 200 });
    expect(whole.total).toBeGreaterThan(5);
    const run = await cli(['list-sources', '--analysis', analysis, '--window', '30d', '--limit', '5', '--all', '--format', 'ndjson']);
    expect(run.code).toBe(0);
    const domains = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).domain as string);
    expect(domains).toEqual(whole.items.map((s) => s.domain));
    expect(domains.length).toBe(whole.total);
    expect(run.stderr).toBe(`geo: page 1: ${whole.total} of ${whole.total} items\n`);

    // --all's CSV is the read's CSV: the same window columns, the tracked brand's row.
    for (const read of ['list-competitors', 'list-sources']) {
      const args = [read, '--analysis', analysis, '--window', '30d', '--format', 'csv', '--quiet'];
      const [one, all] = await Promise.all([cli(args), cli([...args, '--all'])]);
      expect({ read, code: all.code, stderr: all.stderr }).toEqual({ read, code: 0, stderr: '' });
      expect({ read, csv: all.stdout }).toEqual({ read, csv: one.stdout });
    }
  });

  test('--all on a list longer than any call reaches: every item got, then one line on stderr and exit 7', async () => {
    const { total } = await geo.listRuns({ analysis, limit: 1 });
    const first = await geo.listRuns({ analysis, limit: 100 });
    expect(total).toBeGreaterThan(100);
    const told = `geo: incomplete: wrote 100 of ${total} items of list-runs: it returns one page of at most 100 items and has no cursor or offset to reach the others\n`;

    const ndjson = await cli(['list-runs', '--analysis', analysis, '--all', '--format', 'ndjson']);
    expect(ndjson.code).toBe(7);
    const ids = ndjson.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id as string);
    expect(ids).toEqual(first.items.map((r) => r.id));
    expect(ndjson.stderr).toBe(`geo: page 1: 100 of ${total} items\n${told}`);

    // --quiet hides the progress, never the shortfall; json and csv are written whole before it is told.
    const json = await cli(['list-runs', '--analysis', analysis, '--all', '--quiet', '--limit', '3']);
    expect([json.code, json.stderr]).toEqual([7, told]);
    expect((JSON.parse(json.stdout) as Array<{ id: string }>).map((r) => r.id)).toEqual(ids);
    const csv = await cli(['list-runs', '--analysis', analysis, '--all', '--quiet', '--format', 'csv']);
    expect([csv.code, csv.stderr]).toEqual([7, told]);
    expectCsvOf(csv.stdout, first.items);

    const help = await cli(['--help']);
    expect(help.stdout).toMatch(/7 --all wrote fewer items than the list holds/);
  });

  test('every read answers through the CLI (json), the key from GEO_API_KEY', async () => {
    const me = await cli(['getMe']);
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout).workspace.id).toBe(manifest.workspaces.acme);
    const analysisBody = await cli(['get-analysis', '--analysis', analysis]);
    expect(JSON.parse(analysisBody.stdout)).toEqual(await geo.getAnalysis({ analysis }));
    const answer = (await geo.listAnswers({ analysis, limit: 1 })).items[0]!.id;
    for (const args of [
      ['list-prompts', '--analysis', analysis],
      ['list-runs', '--analysis', analysis, '--limit', '2'],
      ['get-run', '--analysis', analysis, '--run', 'latest'],
      ['get-answer', '--analysis', analysis, '--answer', answer],
      ['get-answer', '--analysis', analysis, `--answer=${answer}`, '--format', 'csv'],
    ]) {
      const run = await cli(args);
      expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: '' });
      expect(run.stdout.length).toBeGreaterThan(2);
    }
  });

  test('exit codes a script can branch on, with the reason on stderr', async () => {
    const cases: Array<[string[], Record<string, string | undefined>, number, RegExp]> = [
      [['get-me'], { GEO_BASE_URL: undefined }, 2, /GEO_BASE_URL is not set/],
      [['get-me'], { GEO_API_KEY: undefined }, 2, /GEO_API_KEY is not set/],
      [['get-everything'], {}, 2, /unknown read "get-everything"/],
      [['get-metrics', '--analysis', analysis, '--colour', 'red'], {}, 2, /takes no --colour/],
      [['get-metrics'], {}, 2, /needs --analysis/],
      [['get-me', '--all'], {}, 2, /--all pages through a list/],
      [['list-analyses', '--limit', '0'], {}, 2, /invalid_request: .*param limit/],
      [['get-me'], { GEO_API_KEY: manifest.keys.revoked }, 3, /key_revoked/],
      [['get-me'], { GEO_API_KEY: manifest.keys.plan_without_api }, 3, /plan_required/],
      [['get-analysis', '--analysis', 'no-such-analysis'], {}, 4, /analysis_not_found: .*HTTP 404/],
      [['get-run', '--analysis', analysis, '--run', '00000000-0000-4000-8000-00000000abcd'], {}, 4, /not_found/],
      [
        ['get-me'],
        { GEO_BASE_URL: 'origin' },
        4,
        /^geo: not_found: No such endpoint\. The base URL http:\/\/127\.0\.0\.1:\d+ does not end with \/api\/v1, as the API's base address does: try http:\/\/127\.0\.0\.1:\d+\/api\/v1\. \(HTTP 404/,
      ],
    ];
    // 'origin' stands for the API's address without /api/v1, known once the API has started.
    const origin = new URL(api.baseUrl).origin;
    const runs = await Promise.all(
      cases.map(([args, extra]) => cli(args, env(extra.GEO_BASE_URL === 'origin' ? { ...extra, GEO_BASE_URL: origin } : extra))),
    );
    cases.forEach(([args, , code, message], i) => {
      const run = runs[i]!;
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code, stdout: '' });
      expect(run.stderr).toMatch(message);
    });
  });

  test('budget spent: exit 5; the budget counter down: one retry told on stderr, then exit 6', async () => {
    const spent = await startTestApi({ PLAN_CEILINGS: JSON.stringify({ growth: 0 }) });
    const down = await startTestApi({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', BUDGET_TIMEOUT_MS: '300' });
    try {
      const limited = await cli(['get-me', '--max-retries', '0'], env({ GEO_BASE_URL: spent.baseUrl }));
      expect(limited.code).toBe(5);
      expect(limited.stderr).toMatch(/^geo: rate_limited: .*\(HTTP 429, retry after \d+ s, request id [0-9a-f-]{36}\)\n$/);
      const fault = await cli(['get-me'], env({ GEO_BASE_URL: down.baseUrl }));
      expect(fault.code).toBe(6);
      expect(fault.stderr).toMatch(/^geo: rate_limit_unavailable, retry 1 in 1\.0 s\ngeo: rate_limit_unavailable: /);
    } finally {
      await spent.close();
      await down.close();
    }
  });
});
