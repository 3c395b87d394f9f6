import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { listGroupPrompts, listGroups } from '#shared/reads/figures/groups.js';
import { getMetrics } from '#shared/reads/figures/metrics.js';
import { getMetricsTimeseries } from '#shared/reads/figures/timeseries.js';
import type { LocalApi } from '../../local/stack.js';
import { freshTableName, startApi } from '../../local/stack.js';
import { createBudgetTable, type LocalStore } from '../../local/stores.js';
import {
  HISTORY_ANALYSIS,
  HISTORY_KEYS,
  HISTORY_LONG,
  type HistoryKey,
  REWRITE_KEYS,
  type RewriteKey,
  seedRewrittenHistories,
} from '../fixtures/history.js';
import { call, dynamoEndpoint, expectError, expectServed, startTestApi, testConfig } from '../support/api.js';
import { startOwnStore } from '../support/own-store.js';

/** Histories the product writes after the fact (migration 005), seen through the API. */

let api: LocalApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('a key whose creator lost access stays dead when the access comes back (docs/contract.md#authentication point 3)', () => {
  test.each<[HistoryKey, number]>([
    ['reinvited', 401],
    ['reinvited_bare', 401],
    ['unsuspended', 401],
    ['unsuspended_bare', 401],
    ['after_return', 200],
    ['before_gap', 200],
  ])('%s → %i', async (label, status) => {
    const reply = await call(api, '/me', HISTORY_KEYS[label]);
    if (status === 401) expectError(reply, 401, 'key_revoked', { budget: false });
    else expect(reply.status).toBe(200);
  });
});

describe('a key stays dead when the product writes the access dates back (migration 008)', () => {
  // Histories rewritten through an owner connection, in a store of this describe's own.
  let store: LocalStore;
  let own: LocalApi;
  let outcomes: Record<RewriteKey, string>;
  beforeAll(async () => {
    store = await startOwnStore('geo_test_rewrites', async (db) => {
      outcomes = await seedRewrittenHistories(db);
    });
    const table = freshTableName();
    await createBudgetTable(dynamoEndpoint(), table);
    own = await startApi(testConfig(store.readerUrl, { BUDGET_TABLE: table }));
  }, 180_000);
  afterAll(async () => {
    await own?.close();
    await store?.close();
  });

  test.each<[RewriteKey, string, number]>([
    ['resumed_reset', 'accepted', 401],
    ['resumed_backdated', 'accepted', 401],
    ['rejoined_backdated', 'accepted', 401],
    ['resumed_erased', '23514', 401],
    ['joined_backdated', '23514', 401],
    ['untouched', 'accepted', 200],
  ])('%s: the last write %s; the key answers %i', async (label, outcome, status) => {
    expect(outcomes[label]).toBe(outcome);
    const reply = await call(own, '/me', REWRITE_KEYS[label]);
    if (status === 401) expectError(reply, 401, 'key_revoked', { budget: false });
    else expect(reply.status).toBe(200);
  });
});

type Figures = {
  answers: number;
  extracted_answers: number;
  visibility: { numerator: number; denominator: number; previous: { numerator: number; denominator: number } | null };
  share_of_voice: { numerator: number; denominator: number };
  average_position: { value: number | null; count: number };
  sentiment: { value: number | null; count: number };
  source_share: { numerator: number; denominator: number };
};

/** The additive content of a figure set: what summing prompts must reproduce exactly. */
function additive(f: Figures): Record<string, number> {
  return {
    answers: f.answers,
    extracted: f.extracted_answers,
    visibility_n: f.visibility.numerator,
    visibility_d: f.visibility.denominator,
    previous_visibility_n: f.visibility.previous?.numerator ?? -1,
    previous_visibility_d: f.visibility.previous?.denominator ?? -1,
    sov_n: f.share_of_voice.numerator,
    sov_d: f.share_of_voice.denominator,
    position_n: f.average_position.count,
    position_sum: Math.round((f.average_position.value ?? 0) * f.average_position.count * 1e4) / 1e4,
    sentiment_n: f.sentiment.count,
    sentiment_sum: Math.round((f.sentiment.value ?? 0) * f.sentiment.count * 1e4) / 1e4,
    source_n: f.source_share.numerator,
    source_d: f.source_share.denominator,
  };
}

function sum(rows: Array<Record<string, number>>, keys: string[]): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(keys.map((k) => [k, 0]));
  for (const r of rows) for (const k of keys) out[k] = Math.round(((out[k] as number) + (r[k] as number)) * 1e4) / 1e4;
  return out;
}

describe('group figures follow the prompts in the group now (list_groups and list_group_prompts agree after a move)', () => {
  const base = `/analyses/${HISTORY_ANALYSIS}`;
  const key = HISTORY_KEYS.after_return;

  test.each([
    'window=last-run',
    'window=7d',
    'window=30d',
    'window=all',
    'from=2025-01-31&to=2025-01-31',
    'from=2025-01-01&to=2025-02-28',
    'from=2025-01-15&to=2025-02-01',
    'from=2025-02-02&to=2025-03-31',
  ])('%s: each group equals the sum of its prompts', async (window) => {
    const groups = expectServed(await call(api, `${base}/groups?${window}`, key), listGroups.output);
    expect(groups.items.map((g) => g.name)).toEqual(['G1', 'G2', null]);
    for (const group of groups.items) {
      const prompts = expectServed(await call(api, `${base}/groups/${group.id}/prompts?${window}&limit=200`, key), listGroupPrompts.output);
      expect(prompts.total).toBe(group.prompts);
      const rows = prompts.items.map((p) => additive(p.all_engines as unknown as Figures));
      const own = additive(group as unknown as Figures);
      const keys = Object.keys(own).filter((k) => !k.startsWith('previous_'));
      expect({ group: group.name, ...sum(rows, keys) }).toEqual({ group: group.name, ...Object.fromEntries(keys.map((k) => [k, own[k]])) });
      if (groups.context.comparison !== null && rows.length > 0) {
        expect(sum(rows, ['previous_visibility_n', 'previous_visibility_d'])).toEqual({
          previous_visibility_n: own.previous_visibility_n,
          previous_visibility_d: own.previous_visibility_d,
        });
      }
    }
  });

  test('the rule is stated on both operations of the OpenAPI document', async () => {
    const paths = (await call(api, '/openapi.json')).body.paths;
    expect(paths['/analyses/{analysis}/groups'].get.description).toMatch(/follow a prompt’s current group, history included/);
    expect(paths['/analyses/{analysis}/groups/{group}/prompts'].get.description).toMatch(/The prompts in one group now/);
  });

  test('by hand: after the moves G1 holds q1 and q3, G2 holds q2, none holds nothing', async () => {
    const all = expectServed(await call(api, `${base}/groups?window=all`, key), listGroups.output);
    const by = Object.fromEntries(all.items.map((g) => [g.name ?? 'none', g]));
    // 3 runs × 2 engines per prompt.
    expect({
      G1: [by.G1!.prompts, by.G1!.answers],
      G2: [by.G2!.prompts, by.G2!.answers],
      none: [by.none!.prompts, by.none!.answers],
    }).toEqual({
      G1: [2, 12],
      G2: [1, 6],
      none: [0, 0],
    });
    // q2 is the only prompt citing the owned domain: all of G2's sources are owned, none of G1's.
    expect([by.G2!.source_share.numerator, by.G2!.source_share.denominator]).toEqual([6, 6]);
    expect(by.G1!.source_share.numerator).toBe(0);
  });
});

describe('a daily series stays bounded whatever the stored history, so no reply outgrows what Lambda may answer', () => {
  const key = HISTORY_KEYS.after_return;
  test('window=all over 24 years of history: the series refuses it with 422 naming window; other reads and bounded windows serve', async () => {
    const reply = await call(api, `/analyses/${HISTORY_LONG}/metrics/timeseries?window=all`, key);
    expectError(reply, 422, 'invalid_request', { param: 'window', budget: true });
    expect(reply.body.error.message).toMatch(/from\/to/);
    const metrics = expectServed(await call(api, `/analyses/${HISTORY_LONG}/metrics?window=all`, key), getMetrics.output);
    expect(metrics.context.window).toMatchObject({ first_day: '2001-06-01', last_day: '2025-06-01' });
    const series = expectServed(
      await call(api, `/analyses/${HISTORY_LONG}/metrics/timeseries?from=2024-06-02&to=2025-06-01`, key),
      getMetricsTimeseries.output,
    );
    expect(series.points).toHaveLength(365);
    expect(series.points.filter((p) => p.state !== 'no_run').map((p) => p.day)).toEqual(['2025-06-01']);
  });

  test('with segments=branded (each day split by kind of prompt), a year at most: longer refused naming segments', async () => {
    const reply = await call(api, `/analyses/${HISTORY_LONG}/metrics/timeseries?window=all&segments=branded`, key);
    expectError(reply, 422, 'invalid_request', { param: 'segments', budget: true });
    expect(reply.body.error.message).toMatch(/366 a daily series splits by kind of prompt.*from\/to/);
    const series = expectServed(
      await call(api, `/analyses/${HISTORY_LONG}/metrics/timeseries?from=2024-05-31&to=2025-05-31&segments=branded`, key),
      getMetricsTimeseries.output,
    );
    expect(series.points).toHaveLength(366);
    const ran = series.points.filter((p) => p.state !== 'no_run');
    expect(ran).toEqual([]);
    const last = expectServed(
      await call(api, `/analyses/${HISTORY_LONG}/metrics/timeseries?window=7d&segments=branded`, key),
      getMetricsTimeseries.output,
    );
    const day = last.points.find((p) => p.day === '2025-06-01');
    expect(day && day.state !== 'no_run' && day.segments !== null).toBe(true);
  });
});
