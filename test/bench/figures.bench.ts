import { migrate } from '#shared/admin/migrate.js';
import type { LocalApi } from '../../local/stack.js';
import { largeManifest, seedLarge } from '../fixtures/large-dataset.js';
import { benchApi, type Stats, serverDatabase, stats, table, withUser } from './harness.js';

/**
 * The figure reads (metrics, time series, engines, competitors, sources, groups, group prompts; the first
 * four also with segments) on the large dataset (one analysis, 365 daily runs × 200 prompts × 6 engines per year) on the
 * real PostgreSQL server, through the whole HTTP chain (auth, budget, read). One year, then three years,
 * and the ratio between the two: a longer history must cost little more, since reads sum month
 * aggregates plus the edge days, never answers. Each call's Server-Timing header splits it into the key
 * lookup (caller), the budget counter (budget) and the read's own statements (data), so a change to the
 * figures' SQL shows apart from the rest of the chain.
 *
 * BENCH_YEARS (default "1,3") picks the histories; BENCH_DB_PREFIX (default geo_bench) names their
 * databases, so another checkout (an older commit, its own migrations) can be measured on a database of
 * its own with the same file.
 */
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 100);
const WARMUP = 10;
const YEARS = (process.env.BENCH_YEARS ?? '1,3').split(',').map(Number) as Array<1 | 3>;
const PREFIX = process.env.BENCH_DB_PREFIX ?? 'geo_bench';
const STAGES = ['caller', 'budget', 'data'] as const;

interface Split {
  whole: Stats;
  stages: Record<(typeof STAGES)[number], Stats>;
}

/** `caller;dur=1.2, budget;dur=0.8, data;dur=3.4` as milliseconds by stage. */
function serverTiming(header: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (header ?? '').split(',')) {
    const m = /^\s*([a-z]+);dur=([\d.]+)\s*$/.exec(part);
    if (m) out[m[1] as string] = Number(m[2]);
  }
  return out;
}

/** Warm-up, then SAMPLES sequential calls: the whole call as the client times it, and each server stage. */
async function measureSplit(api: LocalApi, key: string, path: string): Promise<Split> {
  const once = async () => {
    const t0 = performance.now();
    const res = await fetch(`${api.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
    await res.arrayBuffer();
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return { ms, timing: serverTiming(res.headers.get('server-timing')) };
  };
  for (let i = 0; i < WARMUP; i += 1) await once();
  const whole: number[] = [];
  const byStage: Record<string, number[]> = { caller: [], budget: [], data: [] };
  for (let i = 0; i < SAMPLES; i += 1) {
    const { ms, timing } = await once();
    whole.push(ms);
    for (const stage of STAGES) byStage[stage]?.push(timing[stage] ?? Number.NaN);
  }
  return {
    whole: stats(whole),
    stages: { caller: stats(byStage.caller ?? []), budget: stats(byStage.budget ?? []), data: stats(byStage.data ?? []) },
  };
}

export default async function run(): Promise<string> {
  const results = new Map<number, Record<string, Split>>();
  const paths: [string, string][] = [];
  for (const years of YEARS) {
    const m = largeManifest({ years });
    const url = await serverDatabase(`${PREFIX}_${years}y`, async (db) => {
      await migrate(db);
      await seedLarge(db, { years });
    });
    const bench = await benchApi(withUser(url, 'geo_reader'));
    const a = `/analyses/${m.analysisSlug}`;
    const reads: [string, string, string?][] = [
      ['4 metrics', `${a}/metrics`],
      ['5 timeseries', `${a}/metrics/timeseries`],
      ['6 engines', `${a}/engines`],
      ['7 competitors', `${a}/competitors`],
      ['8 sources', `${a}/sources`],
      ['9 groups', `${a}/groups`],
      ['10 group prompts', `${a}/groups/${m.groupIds[0]}/prompts`],
      // The reads that split their figures by kind of prompt on request, asked to.
      ['4 metrics, segments', `${a}/metrics`, '&segments=branded'],
      ['5 timeseries, segments', `${a}/metrics/timeseries`, '&segments=branded'],
      ['6 engines, segments', `${a}/engines`, '&segments=branded'],
      ['7 competitors, segments', `${a}/competitors`, '&segments=branded'],
    ];
    const out: Record<string, Split> = {};
    for (const [name, path, extra = ''] of reads) {
      for (const window of ['all', '30d']) {
        out[`${name}|${window}`] = await measureSplit(bench.api, m.secret, `${path}?window=${window}${extra}`);
        if (years === YEARS[0]) paths.push([name, window]);
      }
    }
    results.set(years, out);
    await bench.close();
  }
  const wholeRows = paths.map(([name, window]) => {
    const row: Record<string, string | number> = { read: name, window };
    for (const years of YEARS) {
      const s = results.get(years)?.[`${name}|${window}`] as Split;
      row[`${years}y p50 ms`] = s.whole.p50;
      row[`${years}y p95 ms`] = s.whole.p95;
    }
    if (YEARS.includes(1) && YEARS.includes(3)) {
      const one = results.get(1)?.[`${name}|${window}`] as Split;
      const three = results.get(3)?.[`${name}|${window}`] as Split;
      row['3y/1y p50'] = (three.whole.p50 / one.whole.p50).toFixed(2);
      row['3y/1y p95'] = (three.whole.p95 / one.whole.p95).toFixed(2);
    }
    return row;
  });
  const splitRows = paths.flatMap(([name, window]) =>
    YEARS.map((years) => {
      const s = results.get(years)?.[`${name}|${window}`] as Split;
      return {
        read: name,
        window,
        history: `${years}y`,
        'whole p50 ms': s.whole.p50,
        'caller p50 ms': s.stages.caller.p50,
        'budget p50 ms': s.stages.budget.p50,
        'data p50 ms': s.stages.data.p50,
        'data p95 ms': s.stages.data.p95,
      };
    }),
  );
  return (
    `Large dataset: 1 analysis, 200 prompts × 6 engines × 1 daily run (1y: 438,000 answers; 3y: 1,314,000), ` +
    `PostgreSQL server on 127.0.0.1, ${SAMPLES} sequential calls per read after ${WARMUP} warm-up calls, through HTTP.\n\n` +
    `${table(wholeRows)}\n\nThe same calls split by their Server-Timing header (medians of each stage):\n\n${table(splitRows)}`
  );
}
