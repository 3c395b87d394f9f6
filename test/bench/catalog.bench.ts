import { migrate } from '#shared/admin/migrate.js';
import { largeManifest, seedLarge } from '../fixtures/large-dataset.js';
import { withClient } from '../support/server-db.js';
import { benchApi, measure, serverDatabase, stats, table, withUser } from './harness.js';

/**
 * The catalog reads (prompts, runs, a run, answers, an answer) on the large dataset (test/fixtures/large-dataset.ts, the figures benchmark's geo_bench_1y), on the
 * PostgreSQL server: warm, sequential p50/p95 through the local HTTP adapter (identity + budget + data),
 * and the answer list at page 1 against page 100 (keyset: a deep page must not cost more than the first).
 *
 * The large history ends on a fixed day, while named answer windows end today (calendar-anchored), so the
 * answer list is measured with from/to windows of 30 and 90 days ending on that day, and with `all`.
 */

const TARGET_P95_MS = 30;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const DAY_MS = 86_400_000;
const daysBefore = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);

export default async function run(): Promise<string> {
  const years = 1 as const;
  const m = largeManifest({ years });
  // The same fill as test/bench/figures.bench.ts, so whichever section runs first fills it for both.
  const url = await serverDatabase(`geo_bench_${years}y`, async (db) => {
    await migrate(db);
    await seedLarge(db, { years });
  });
  // A database filled before a later migration (004: answer_days) is brought up to date, as a deploy would.
  await withClient(url, (owner) => migrate(owner));

  const bench = await benchApi(withUser(url, 'geo_reader'));
  // The data step's own time, from the Server-Timing header, apart from identity and budget.
  let dataMs: number[] = [];
  const get = async (path: string): Promise<any> => {
    const res = await fetch(`${bench.api.baseUrl}${path}`, { headers: { authorization: `Bearer ${m.secret}` } });
    const body = await res.json();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    const data = /(?:^|,\s*)data;dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '');
    if (data) dataMs.push(Number(data[1]));
    return body;
  };
  const a = `/analyses/${m.analysisSlug}`;
  const rows: Array<Record<string, string | number>> = [];
  let runCount = 0;
  try {
    const runs = await get(`${a}/runs?limit=100`);
    const oldRun = runs.items.at(-1).id as string;
    runCount = runs.total as number;
    const windows: [string, string][] = [
      [`from=${daysBefore(m.endDate, 29)}&to=${m.endDate}`, 'last 30 days'],
      [`from=${daysBefore(m.endDate, 89)}&to=${m.endDate}`, 'last 90 days'],
      ['window=all', 'all'],
    ];
    /** The cursor that opens page `n` of a listing. */
    const cursorOfPage = async (qs: string, n: number): Promise<string> => {
      let cursor = '';
      for (let i = 1; i < n; i += 1) {
        const page = await get(`${a}/answers?${qs}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        if (!page.next_cursor) throw new Error(`answers ${qs}: fewer than ${n} pages`);
        cursor = page.next_cursor;
      }
      return cursor;
    };
    const answerIds: string[] = (await get(`${a}/answers?${windows[0]![0]}&limit=100`)).items.map((i: { id: string }) => i.id);
    let next = 0;

    const cases: Array<[string, string, () => Promise<unknown>]> = [
      ['11', 'GET /prompts (200 prompts)', () => get(`${a}/prompts`)],
      ['12', 'GET /runs (default limit 30)', () => get(`${a}/runs`)],
      ['12', 'GET /runs?limit=100', () => get(`${a}/runs?limit=100`)],
      ['13', 'GET /runs/latest', () => get(`${a}/runs/latest`)],
      ['13', 'GET /runs/{100th most recent}', () => get(`${a}/runs/${oldRun}`)],
    ];
    for (const [qs, label] of windows) {
      const deep = await cursorOfPage(qs, 100);
      cases.push(['14', `GET /answers ${label}, page 1`, () => get(`${a}/answers?${qs}`)]);
      cases.push(['14', `GET /answers ${label}, page 100`, () => get(`${a}/answers?${qs}&cursor=${encodeURIComponent(deep)}`)]);
    }
    cases.push(['15', 'GET /answers/{answer} (100 different)', () => get(`${a}/answers/${answerIds[next++ % answerIds.length]}`)]);

    for (const [read, label, fn] of cases) {
      dataMs = [];
      const s = await measure(fn, SAMPLES, 20);
      const d = stats(dataMs.slice(-SAMPLES));
      rows.push({
        read,
        call: label,
        'p50 ms': s.p50,
        'p95 ms': s.p95,
        [`p95 ≤ ${TARGET_P95_MS} ms`]: s.p95 <= TARGET_P95_MS ? 'yes' : 'NO',
        'data SQL p50': d.p50,
        'data SQL p95': d.p95,
      });
    }
  } finally {
    await bench.close();
  }
  return (
    `${table(rows)}\n\nPostgreSQL server, geo_bench_${years}y (${m.answers} answers, ${runCount} runs), ${SAMPLES} sequential warm calls per line. ` +
    'Answer list: limit 30; page 100 is reached with the signed cursor (keyset on answers_keyset), so it reads as few rows as page 1; ' +
    'total sums the per-day counts of answer_days (migration 004), so it costs O(days) whatever the window.'
  );
}
