import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { z } from 'zod';
import { verifyAggregates } from '#shared/admin/verify-aggregates.js';
import { getAnswer, listAnswers } from '#shared/reads/catalog/answers.js';
import { getRun } from '#shared/reads/catalog/runs.js';
import { listCompetitors } from '#shared/reads/figures/competitors.js';
import { listEngines } from '#shared/reads/figures/engines.js';
import { listGroupPrompts, listGroups } from '#shared/reads/figures/groups.js';
import { getMetrics } from '#shared/reads/figures/metrics.js';
import { listSources } from '#shared/reads/figures/sources.js';
import { getMetricsTimeseries } from '#shared/reads/figures/timeseries.js';
import { getAnalysis, listAnalyses } from '#shared/reads/identity/analyses.js';
import { reads } from '#shared/reads/registry.js';
import { matchPath } from '#shared/rest/paths.js';
import { freshTableName, type LocalApi, startApi } from '../../local/stack.js';
import { createBudgetTable } from '../../local/stores.js';
import { call, dynamoEndpoint, expectError, expectServed, type Reply, testConfig } from '../support/api.js';
import { warmOpenApiValidators } from '../support/openapi.js';
import {
  type AnalysisRows,
  type Dataset,
  datasetArb,
  expectedBrands,
  expectedCategories,
  expectedCoverage,
  expectedDirectShare,
  expectedHeadline,
  expectedSources,
  type HeadlineLike,
  materialise,
  servedHeadline,
  sumsOf,
  TRACKED_BRAND,
  wipe,
  writeDataset,
} from './dataset.js';
import { startWritableStore, type WritableStore } from './writable-store.js';

/**
 * Whatever the data contract (docs/data-contract.md) allows, every read serves it.
 * Each case is a dataset written as the pipeline writes one (test/property/dataset.ts): identifiers of every
 * form, ties on captured_at and on prompt creation, Unicode and strings at their bounds, runs without answers,
 * runs still collecting, late, failed, failed extraction, re-extraction, prompts moved between groups, groups
 * emptied. For each: every read answers 200 or its documented 4xx (and matches openapi.json: call() checks
 * every reply), paging visits every row exactly once, and the figures equal the same figures worked out from
 * the rows written.
 *
 * Fixed seed, so a failure replays; FC_SEED=... FC_RUNS_DATA_CONTRACT=... explore others.
 */
const SEED = Number(process.env.FC_SEED ?? 20261126);
const RUNS = Number(process.env.FC_RUNS_DATA_CONTRACT ?? 10);

let store: WritableStore;
let api: LocalApi;
beforeAll(async () => {
  warmOpenApiValidators();
  store = await startWritableStore('geo_test_property');
  const table = freshTableName();
  await createBudgetTable(dynamoEndpoint(), table);
  api = await startApi(testConfig(store.readerUrl, { BUDGET_TABLE: table }));
}, 120_000);
afterAll(async () => {
  await api?.close();
  await store?.close();
});

/**
 * Every figure of a reply with a p_value: its significant_fdr is the Benjamini–Hochberg verdict at q = 0.05
 * on the reply's published p-values, and never true where significant is not; the context counts the tests.
 */
function expectBenjaminiHochberg(body: { context: { multiple_comparisons: unknown } }): void {
  const found: Array<{ p_value: number | null; significant: boolean | null; significant_fdr: boolean | null }> = [];
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object') return;
    if ('p_value' in v) found.push(v as (typeof found)[number]);
    for (const x of Object.values(v)) walk(x);
  };
  walk(body);
  const ps = found.flatMap((f) => (f.p_value === null ? [] : [f.p_value])).sort((a, b) => a - b);
  let cut = -1;
  ps.forEach((p, i) => {
    if (p <= ((i + 1) * 0.05) / ps.length) cut = p;
  });
  expect(body.context.multiple_comparisons).toEqual({ method: 'benjamini-hochberg', q: 0.05, tests: ps.length });
  for (const f of found) expect(f.significant_fdr).toBe(f.p_value === null ? null : f.p_value <= cut && f.significant === true);
}

/** The reads called so far, by name: the last test holds them to the read table. */
const called = new Set<string>();

/** call(), noting which read of the table the path names. */
function get(path: string, key: string): Promise<Reply> {
  const bare = path.split('?')[0] as string;
  const read = reads.find((r) => matchPath(r.path, bare));
  if (read) called.add(read.name);
  return call(api, path, key);
}

const served = async <T extends z.ZodType>(path: string, key: string, schema: T): Promise<z.infer<T>> =>
  expectServed(await get(path, key), schema);

/** Pages a cursor-paged read to its end: every item, and the total of every page. */
async function pageAll<T>(first: string, key: string, schema: z.ZodType): Promise<{ items: T[]; totals: number[] }> {
  const items: T[] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 500; pages += 1) {
    const path: string = cursor ? `${first}&cursor=${encodeURIComponent(cursor)}` : first;
    const page = (await served(path, key, schema)) as { items: T[]; next_cursor: string | null; total: number; truncated: boolean };
    items.push(...page.items);
    totals.push(page.total);
    expect(page.truncated).toBe(page.next_cursor !== null);
    cursor = page.next_cursor;
    if (!cursor) return { items, totals };
  }
  throw new Error(`${first}: more than 500 pages`);
}

const byKey = <T>(xs: T[], key: (x: T) => string) => [...xs].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

async function checkAnalysis(ds: Dataset, a: AnalysisRows, limit: number): Promise<void> {
  const key = ds.secret;
  const owned = a.owned.length > 0;
  const bySlug = `/analyses/${encodeURIComponent(a.slug)}`;
  // A capital-letter id names the analysis as its lower-case form does.
  const byId = `/analyses/${a.id.toUpperCase()}`;
  for (const base of [bySlug, byId]) expect((await served(base, key, getAnalysis.output)).id).toBe(a.id);
  const base = bySlug;

  // Figures over every collected run, recomputed from the rows.
  const metrics = await served(`${base}/metrics?window=all`, key, getMetrics.output);
  expect(servedHeadline(metrics.metrics as HeadlineLike, owned)).toEqual(
    expectedHeadline(
      sumsOf(a, () => true),
      owned,
    ),
  );
  const coverage = Object.fromEntries(
    metrics.context.coverage.map((c) => [
      c.engine.key,
      { expected: c.expected, collected: c.collected, extracted: c.extracted, failed: c.failed },
    ]),
  );
  expect(coverage).toEqual(expectedCoverage(a));
  expect(metrics.context.state === 'never_collected').toBe(!a.runs.some((r) => r.collected));

  // last-run: the latest collected run by start, ties broken by the greater id (byte order, as the store's).
  const collected = a.runs.filter((r) => r.collected).sort((x, y) => cmp(y.startedAt, x.startedAt) || cmp(y.id, x.id));
  const lastRun = await served(`${base}/metrics?window=last-run`, key, getMetrics.output);
  expect(lastRun.context.run?.id ?? null).toBe(collected[0]?.id ?? null);
  if (collected[0]) {
    const anchor = collected[0].id;
    expect(servedHeadline(lastRun.metrics as HeadlineLike, owned)).toEqual(
      expectedHeadline(
        sumsOf(a, (x) => x.run === anchor),
        owned,
      ),
    );
  }

  // The daily series: each day with a collection shows its latest run (by start, then id) and that run's figures.
  const series = await served(`${base}/metrics/timeseries?window=all`, key, getMetricsTimeseries.output);
  const ran = series.points.filter((p) => p.state !== 'no_run') as Array<{
    day: string;
    run_id: string;
    answers: number;
    extracted_answers: number;
  }>;
  const latestOfDay = new Map<string, string>();
  for (const r of collected) if (!latestOfDay.has(r.startedAt.slice(0, 10))) latestOfDay.set(r.startedAt.slice(0, 10), r.id);
  expect(ran.map((p) => [p.day, p.run_id])).toEqual([...latestOfDay.entries()].sort(([x], [y]) => cmp(x, y)));
  for (const p of ran) {
    const s = sumsOf(a, (x) => x.run === p.run_id);
    expect([p.day, p.answers, p.extracted_answers]).toEqual([p.day, s.answers, s.extracted]);
  }

  const engines = await served(`${base}/engines?window=all`, key, listEngines.output);
  const others = [...new Set(a.runs.filter((r) => r.collected).flatMap((r) => r.engines.map((e) => e.engine)))]
    .filter((e) => !a.engines.includes(e))
    .sort(cmp);
  expect(engines.items.map((e) => e.engine.key)).toEqual([...a.engines, ...others]);
  for (const e of engines.items) {
    expect({ engine: e.engine.key, ...servedHeadline(e as unknown as HeadlineLike, owned) }).toEqual({
      engine: e.engine.key,
      ...expectedHeadline(
        sumsOf(a, (x) => x.engine === e.engine.key),
        owned,
      ),
    });
  }

  const groupOf = new Map(a.prompts.map((p) => [p.id, p.finalGroup]));
  const groups = await served(`${base}/groups?window=all`, key, listGroups.output);
  expect(
    byKey(
      groups.items.map((g) => g.id),
      (x) => x,
    ),
  ).toEqual(byKey([...a.groups.map((g) => g.id), 'none'], (x) => x));
  for (const g of groups.items) {
    const id = g.id === 'none' ? null : g.id;
    const members = a.prompts.filter((p) => p.finalGroup === id);
    expect({ group: g.id, prompts: g.prompts, ...servedHeadline(g as unknown as HeadlineLike, owned) }).toEqual({
      group: g.id,
      prompts: members.length,
      ...expectedHeadline(
        sumsOf(a, (x) => groupOf.get(x.prompt) === id),
        owned,
      ),
    });
    // Offset paging of the group's prompts visits each prompt once, in creation order then id.
    const seen: string[] = [];
    for (let offset = 0; offset <= members.length; offset += limit) {
      const path = `${base}/groups/${g.id === 'none' ? 'none' : g.id.toUpperCase()}/prompts?window=all&limit=${limit}&offset=${offset}`;
      const page = await served(path, key, listGroupPrompts.output);
      expect(page.total).toBe(members.length);
      expect(page.truncated).toBe(offset + page.items.length < members.length);
      for (const item of page.items) {
        seen.push(item.prompt.id);
        expect({ prompt: item.prompt.id, ...servedHeadline(item.all_engines as unknown as HeadlineLike, owned) }).toEqual({
          prompt: item.prompt.id,
          ...expectedHeadline(
            sumsOf(a, (x) => x.prompt === item.prompt.id),
            owned,
          ),
        });
      }
    }
    const order = [...members].sort((x, y) => cmp(x.createdAt, y.createdAt) || cmp(x.id, y.id)).map((p) => p.id);
    expect(seen).toEqual(order);
  }

  const sources = await served(`${base}/sources?window=all&limit=200`, key, listSources.output);
  const want = expectedSources(a);
  expect(sources.total).toBe(Object.keys(want).length);
  expect(
    Object.fromEntries(byKey(sources.items, (s) => s.domain).map((s) => [s.domain, { citations: s.citations, answers: s.answers }])),
  ).toEqual(want);
  // Categories: every citation of the window in exactly one, as the domains' categories say.
  const cats = expectedCategories(a);
  expect({
    owned: [sources.categories.owned.numerator, sources.categories.owned.denominator],
    competitor: [sources.categories.competitor.numerator, sources.categories.competitor.denominator],
    other: [sources.categories.other.numerator, sources.categories.other.denominator],
  }).toEqual({ owned: [cats.owned, cats.all], competitor: [cats.competitor, cats.all], other: [cats.other, cats.all] });
  const competitorDomains = new Set(a.competitors.map((c) => c.domain));
  for (const item of sources.items)
    expect([item.domain, item.category]).toEqual([
      item.domain,
      a.owned.includes(item.domain) ? 'owned' : competitorDomains.has(item.domain) ? 'competitor' : 'other',
    ]);

  // The share of voice on the direct universe, and how many brands each share counts.
  const direct3 = expectedDirectShare(a);
  expect({
    numerator: metrics.metrics.share_of_voice_direct.numerator,
    denominator: metrics.metrics.share_of_voice_direct.denominator,
    universe: metrics.metrics.share_of_voice_universe,
  }).toEqual(direct3);

  // significant_fdr: Benjamini–Hochberg at 0.05 on the p-values each reply publishes, never beyond significant.
  for (const path of [
    `${base}/metrics?window=7d`,
    `${base}/engines?window=7d`,
    `${base}/competitors?window=7d`,
    `${base}/sources?window=7d`,
  ]) {
    const reply = await get(path, key);
    expect({ path, status: reply.status }).toEqual({ path, status: 200 });
    expectBenjaminiHochberg(reply.body);
  }

  // Competitors: every brand once per answer naming it, under the name the read reports.
  const brands = expectedBrands(a);
  const extracted = sumsOf(a, () => true).extracted;
  const brandFigures = (name: string) => ({
    name,
    mentions: brands.get(name)?.mentions ?? 0,
    visibility: [brands.get(name)?.answers ?? 0, extracted],
    position_n: brands.get(name)?.answers ?? 0,
  });
  const servedBrand = (b: {
    name: string;
    mentions: number;
    visibility: { numerator: number; denominator: number };
    average_position: { count: number };
  }) => ({
    name: b.name,
    mentions: b.mentions,
    visibility: [b.visibility.numerator, b.visibility.denominator],
    position_n: b.average_position.count,
  });
  const competitors = await served(`${base}/competitors?window=all`, key, listCompetitors.output);
  expect(servedBrand(competitors.tracked)).toEqual(brandFigures(TRACKED_BRAND));
  const direct = new Set(a.competitors.map((c) => c.name));
  const indirect = [...brands.keys()].filter((b) => b !== TRACKED_BRAND && !direct.has(b));
  expect(competitors.total).toBe(a.competitors.length + indirect.length);
  expect(byKey(competitors.items.map(servedBrand), (b) => b.name)).toEqual(
    byKey([...direct, ...indirect].map(brandFigures), (b) => b.name),
  );

  // Every other read, in its default and other windows: 200, matching its schema and openapi.json.
  const paths = [
    `${base}/metrics`,
    `${base}/metrics?window=7d`,
    `${base}/metrics?from=2024-12-19&to=2025-02-01`,
    `${base}/metrics/timeseries?from=2024-12-19&to=2025-02-01`,
    `${base}/engines`,
    `${base}/competitors`,
    `${base}/sources`,
    `${base}/groups`,
    `${base}/groups?window=30d`,
    `${base}/groups/none/prompts`,
    `${base}/prompts`,
    `${base}/runs?limit=100`,
    `${byId}/metrics?window=90d`,
  ];
  for (const path of paths) {
    const reply = await get(path, key);
    expect({ path, status: reply.status }).toEqual({ path, status: 200 });
  }

  // Runs: by id (in capitals too) and latest; none started → 404 not_found.
  const latest = await get(`${base}/runs/latest`, key);
  if (a.runs.length === 0) expectError(latest, 404, 'not_found');
  else expect(latest.status).toBe(200);
  for (const r of a.runs) {
    for (const ref of [r.id, r.id.toUpperCase()]) expect((await served(`${base}/runs/${ref}`, key, getRun.output)).id).toBe(r.id);
  }

  // The answer list: every answer once, most recent capture first then id, total counted on every page.
  const list = await pageAll<{ id: string }>(`${base}/answers?window=all&limit=${limit}`, key, listAnswers.output);
  const order = [...a.answers].sort((x, y) => (x.at === y.at ? cmp(y.id, x.id) : x.at > y.at ? -1 : 1)).map((x) => x.id);
  expect(list.items.map((x) => x.id)).toEqual(order);
  expect(new Set(list.totals)).toEqual(new Set(order.length === 0 ? [0] : [order.length]));

  // Some answers whole, named in capitals: text verbatim, mentions as extracted (null unless extracted).
  for (const x of [...a.answers.slice(0, 3), ...a.answers.slice(-2)]) {
    const got = await served(`${base}/answers/${x.id.toUpperCase()}`, key, getAnswer.output);
    expect(got.id).toBe(x.id);
    expect(got.text).toBe(x.text);
    expect(got.extraction.state).toBe(x.state);
    expect(got.mentions?.map((m) => [m.position, m.brand, m.sentiment]) ?? null).toEqual(
      x.state === 'extracted' ? x.mentions.map((m) => [m.position, m.brand, m.sentiment]) : null,
    );
    expect(got.citations).toEqual(
      x.state === 'extracted' ? x.citations.map((c) => ({ position: c.ordinal, url: c.url, domain: c.domain })) : null,
    );
  }
}

async function checkDataset(ds: Dataset, limit: number): Promise<void> {
  expect((await get('/me', ds.secret)).status).toBe(200);
  // The analyses list: each analysis once, by slug (byte order), whatever the page size.
  const list = await pageAll<{ id: string; slug: string }>(`/analyses?limit=${limit}`, ds.secret, listAnalyses.output);
  expect(list.items.map((x) => x.id)).toEqual(byKey(ds.analyses, (a) => Buffer.from(a.slug).toString('hex')).map((a) => a.id));
  expect(new Set(list.totals)).toEqual(new Set([ds.analyses.length]));
  for (const a of ds.analyses) await checkAnalysis(ds, a, limit);
}

/** A short account of a failing dataset (its strings can run to 100,000 characters). */
function summary(ds: Dataset): string {
  const cut = (s: string) => (s.length > 40 ? `${JSON.stringify(s.slice(0, 40))}…(${s.length})` : JSON.stringify(s));
  return JSON.stringify(
    {
      engines: ds.engines.map(cut),
      analyses: ds.analyses.map((a) => ({
        id: a.id,
        slug: cut(a.slug),
        owned: a.owned.map(cut),
        groups: a.groups.map((g) => g.id),
        prompts: a.prompts.map((p) => ({ id: p.id, group: p.group, final: p.finalGroup, created: p.createdAt })),
        runs: a.runs.map((r) => ({ id: r.id, state: r.state, started: r.startedAt, collected: r.collected, reextract: r.reextract })),
        answers: a.answers.map((x) => ({
          id: x.id,
          run: x.run,
          at: x.capturedAt,
          state: x.state,
          m: x.mentions.length,
          c: x.citations.length,
        })),
      })),
    },
    null,
    1,
  );
}

describe(`every dataset the data contract allows is served (fast-check seed ${SEED}, ${RUNS} datasets)`, () => {
  test('200 or the documented 4xx; paging visits every row once; figures equal a recomputation from the rows; no drift', async () => {
    let n = 0;
    let last: Dataset | undefined;
    const outcome = await fc.check(
      fc.asyncProperty(datasetArb, fc.integer({ min: 1, max: 3 }), async (spec, limit) => {
        n += 1;
        const ds = materialise(spec, n);
        last = ds;
        await store.write(async (db) => {
          await wipe(db);
          await writeDataset(db, ds);
          // Written as the contract says, the store holds no drift: verify-aggregates' recomputation from
          // the raw rows agrees with what finish_run_extraction wrote, whatever the dataset holds.
          expect((await verifyAggregates(db, { repair: false })).drift).toEqual([]);
        });
        await checkDataset(ds, limit);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    if (outcome.failed) {
      throw new Error(
        `data contract property failed (FC_SEED=${outcome.seed}, path ${outcome.counterexamplePath}, dataset ${n}, page size ${outcome.counterexample?.[1]}):\n` +
          `${String(outcome.errorInstance instanceof Error ? outcome.errorInstance.message : outcome.errorInstance)}\n${last ? summary(last) : ''}`,
      );
    }
    expect(outcome.numRuns).toBe(RUNS);
  }, 600_000);

  test('every read of the table is among those checked above', () => {
    // A read added to the table must be added to checkAnalysis (or to the list of every other read).
    expect([...called].sort()).toEqual(reads.map((r) => r.name).sort());
  });
});
