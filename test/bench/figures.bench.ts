import { migrate } from '#shared/admin/migrate.js';
import { largeManifest, seedLarge } from '../fixtures/large-dataset.js';
import { benchApi, getter, measure, type Stats, serverDatabase, table, withUser } from './harness.js';

/**
 * Reads 4-10 on the large dataset (one analysis, 365 daily runs × 200 prompts × 6 engines per year) on the
 * real PostgreSQL server, through the whole HTTP chain (auth, budget, read). One year, then three years,
 * and the ratio between the two: a longer history must cost little more, since reads sum month
 * aggregates plus the edge days, never answers.
 */
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 100);

export default async function run(): Promise<string> {
  const results: Record<string, Stats>[] = [];
  const paths: [string, string][] = [];
  for (const years of [1, 3] as const) {
    const m = largeManifest({ years });
    const url = await serverDatabase(`geo_bench_${years}y`, async (db) => {
      await migrate(db);
      await seedLarge(db, { years });
    });
    const bench = await benchApi(withUser(url, 'geo_reader'));
    const get = getter(bench.api, m.secret);
    const a = `/analyses/${m.analysisSlug}`;
    const reads: [string, string][] = [
      ['4 metrics', `${a}/metrics`],
      ['5 timeseries', `${a}/metrics/timeseries`],
      ['6 engines', `${a}/engines`],
      ['7 competitors', `${a}/competitors`],
      ['8 sources', `${a}/sources`],
      ['9 groups', `${a}/groups`],
      ['10 group prompts', `${a}/groups/${m.groupIds[0]}/prompts`],
    ];
    const out: Record<string, Stats> = {};
    for (const [name, path] of reads) {
      for (const window of ['all', '30d']) {
        out[`${name}|${window}`] = await measure(() => get(`${path}?window=${window}`), SAMPLES, 10);
        if (years === 1) paths.push([name, window]);
      }
    }
    results.push(out);
    await bench.close();
  }
  const rows = paths.map(([name, window]) => {
    const one = results[0]![`${name}|${window}`]!;
    const three = results[1]![`${name}|${window}`]!;
    return {
      read: name,
      window,
      '1y p50 ms': one.p50,
      '1y p95 ms': one.p95,
      '3y p50 ms': three.p50,
      '3y p95 ms': three.p95,
      '3y/1y p50': (three.p50 / one.p50).toFixed(2),
      '3y/1y p95': (three.p95 / one.p95).toFixed(2),
    };
  });
  return (
    `Large dataset: 1 analysis, 200 prompts × 6 engines × 1 daily run (1y: 438,000 answers; 3y: 1,314,000), ` +
    `PostgreSQL server on 127.0.0.1, ${SAMPLES} sequential calls per read after 10 warm-up calls, through HTTP.\n\n` +
    table(rows)
  );
}
