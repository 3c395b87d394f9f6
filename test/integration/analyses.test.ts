import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { z } from 'zod';
import { getAnalysis, listAnalyses } from '#shared/reads/identity/analyses.js';
import { meSchema } from '#shared/reads/identity/me.js';
import type { LocalApi } from '../../local/stack.js';
import { call, expectError, expectServed, manifest, startTestApi } from '../support/api.js';

let api: LocalApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const list = listAnalyses.output;
const one = getAnalysis.output;
type ListBody = z.infer<typeof list>;

async function pageAll(key: string, limit: number): Promise<ListBody[]> {
  const pages: ListBody[] = [];
  let cursor: string | null = null;
  do {
    const qs: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page: ListBody = expectServed(await call(api, `/analyses${qs}`, key), list);
    pages.push(page);
    cursor = page.next_cursor;
  } while (cursor && pages.length < 100);
  return pages;
}

describe('GET /analyses', () => {
  test('paging with limit 1 visits every analysis in reach exactly once; total constant; last cursor null', async () => {
    const reach = expectServed(await call(api, '/me', manifest.keys.workspace), meSchema).reach.analyses;
    const pages = await pageAll(manifest.keys.workspace, 1);
    const slugs = pages.flatMap((p) => p.items.map((i) => i.slug));
    expect(slugs.length).toBe(reach);
    expect(new Set(slugs).size).toBe(reach);
    expect(new Set(pages.map((p) => p.total))).toEqual(new Set([reach]));
    expect(pages.at(-1)!.next_cursor).toBeNull();
    expect(pages.at(-1)!.truncated).toBe(false);
    expect(pages.slice(0, -1).every((p) => p.truncated && p.next_cursor)).toBe(true);
    const whole = expectServed(await call(api, '/analyses', manifest.keys.workspace), list);
    expect(whole.items.map((i) => i.slug)).toEqual(slugs);
    expect(whole.next_cursor).toBeNull();
  });

  test('each key lists only its reach', async () => {
    const brand = expectServed(await call(api, '/analyses', manifest.keys.brand), list);
    expect(brand.items.every((i) => i.brand.name === 'Acme')).toBe(true);
    const single = expectServed(await call(api, '/analyses', manifest.keys.analysis), list);
    expect(single.items.map((i) => i.slug)).toEqual([manifest.analyses.collected]);
    const empty = expectServed(await call(api, '/analyses', manifest.keys.empty_scope), list);
    expect(empty).toEqual({ items: [], next_cursor: null, truncated: false, total: 0 });
    const other = expectServed(await call(api, '/analyses', manifest.keys.other_workspace), list);
    expect(other.items.map((i) => i.slug)).toContain(manifest.analyses.other_workspace);
    expect(other.items.map((i) => i.id)).not.toContain(manifest.analysisIds.collected);
  });

  test('collection state is stated', async () => {
    const whole = expectServed(await call(api, '/analyses', manifest.keys.workspace), list);
    const bySlug = new Map(whole.items.map((i) => [i.slug, i]));
    expect(bySlug.get(manifest.analyses.never_collected)?.state).toBe('never_collected');
    expect(bySlug.get(manifest.analyses.never_collected)?.last_collected_at).toBeNull();
    expect(bySlug.get(manifest.analyses.collected)?.state).toBe('collected');
  });
});

describe('GET /analyses/{analysis}', () => {
  test('by slug and by id give the same body', async () => {
    const bySlug = await call(api, `/analyses/${manifest.analyses.collected}`, manifest.keys.workspace);
    const byId = await call(api, `/analyses/${manifest.analysisIds.collected}`, manifest.keys.workspace);
    const a = expectServed(bySlug, one);
    expectServed(byId, one);
    expect(byId.text).toBe(bySlug.text);
    expect(a.owned_domains.length).toBeGreaterThan(0);
    expect(a.engines.length).toBeGreaterThanOrEqual(4);
    expect(a.state).toBe('collected');
    expect(a.latest_run?.state).toBe('finished');
  });

  test('out of reach and nonexistent answer byte-identical bodies apart from request_id', async () => {
    const strip = (text: string) => text.replace(/"request_id":"[^"]+"/, '"request_id":"-"');
    const cases = [
      [manifest.keys.brand, manifest.analyses.other_brand],
      [manifest.keys.analysis, manifest.analyses.never_collected],
      [manifest.keys.workspace, manifest.analyses.other_workspace],
      [manifest.keys.workspace, manifest.analysisIds.other_workspace],
      [manifest.keys.empty_scope, manifest.analyses.collected],
    ] as const;
    const missing = await call(api, '/analyses/no-such-analysis', manifest.keys.workspace);
    expectError(missing, 404, 'analysis_not_found', { budget: true });
    const missingId = await call(api, '/analyses/00000000-0000-4000-8000-000000000000', manifest.keys.workspace);
    expect(strip(missingId.text)).toBe(strip(missing.text));
    for (const [key, analysis] of cases) {
      const reply = await call(api, `/analyses/${analysis}`, key);
      expectError(reply, 404, 'analysis_not_found', { budget: true });
      expect(strip(reply.text)).toBe(strip(missing.text));
      expect([...reply.headers.keys()].sort()).toEqual([...missing.headers.keys()].sort());
    }
  });

  test('the extraction-late analysis shows its latest run collected, not extracted', async () => {
    const a = expectServed(await call(api, `/analyses/${manifest.analyses.extraction_late}`, manifest.keys.workspace), one);
    expect(a.latest_run?.state).toBe('extracting');
    expect(a.latest_run?.collected_at).not.toBeNull();
    expect(a.latest_run?.finished_at).toBeNull();
  });
});
