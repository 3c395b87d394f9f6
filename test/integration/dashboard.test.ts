import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type Browser, chromium, type Page } from 'playwright-core';
import { type Dashboard, startDashboard } from '../../examples/dashboard/server.js';
import type { LocalApi } from '../../local/stack.js';
import { FIG_ANALYSIS, FIG_SECRET } from '../fixtures/figures.js';
import { call, manifest, startTestApi } from '../support/api.js';
import { debianInstallHint, findDebianBinary } from '../support/debian.js';

/**
 * examples/dashboard, the example a reader copies to draw the figures, against the local stack. Its
 * backend holds the key and proxies the reads (the API sends no CORS headers); the page, opened in
 * headless Chromium (Debian's package; without it the browser tests are skipped, naming the command that
 * installs it), draws visibility per day with its 95% band, rings the day-to-day moves and colours a
 * change as real only when the API flags it after the Benjamini–Hochberg correction, switches between all,
 * non-branded and branded prompts, lists the competitors with their ranks, the cited sites by category and
 * what changed since the previous run, and says plainly when an analysis was never collected or its
 * extraction is late, at desktop and phone width. Its screenshots go to .local/screenshots/ (gitignored):
 * the demo's dates follow the day it is seeded, so they differ every day. UPDATE_SCREENSHOTS=1 writes
 * them over the ones docs/figures.md shows.
 */

const root = join(import.meta.dirname, '..', '..');
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(root, 'docs', 'images') : join(root, '.local', 'screenshots');
const SCREENSHOT = join(SCREENSHOTS, 'dashboard.png');
const PHONE_SCREENSHOT = join(SCREENSHOTS, 'dashboard-phone.png');
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const chromiumPath = findDebianBinary('/usr/bin/chromium');
const SKIPPED = chromiumPath ? '' : ` (skipped: Debian's chromium is not installed; ${debianInstallHint('chromium')})`;
if (SKIPPED) console.warn(`test/integration/dashboard.test.ts${SKIPPED}`);

let api: LocalApi;
let dash: Dashboard;
const key = () => manifest.keys.workspace;
const analysis = () => manifest.analyses.collected;

beforeAll(async () => {
  api = await startTestApi();
  dash = await startDashboard({ baseUrl: api.baseUrl, key: key(), analysis: analysis() });
});
afterAll(async () => {
  await dash?.close();
  await api?.close();
});

describe('the backend holds the key and proxies the reads', () => {
  test('/data is what the API answers; neither the page nor /data carries the key', async () => {
    const page = await fetch(`${dash.url}/`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).not.toContain(key());
    const res = await fetch(`${dash.url}/data`);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).not.toContain(key());
    const data = JSON.parse(text);
    const series = await call(api, `/analyses/${analysis()}/metrics/timeseries?window=30d&segments=branded`, key());
    expect(data.series).toEqual(series.body);
    const competitors = await call(api, `/analyses/${analysis()}/competitors?window=30d`, key());
    expect(data.competitors).toEqual(competitors.body);
    const sources = await call(api, `/analyses/${analysis()}/sources?window=30d&limit=1`, key());
    expect(data.sources).toEqual(sources.body);
    expect(data.run.state).toBe('finished');
    expect(data.run.changes).not.toBeNull();
    // The API itself answers a browser's preflight with no CORS header: the reason for the backend.
    const pre = await fetch(`${api.baseUrl}/me`, { method: 'OPTIONS', headers: { origin: 'http://example.test' } });
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe(`the page in Chromium${SKIPPED}`, () => {
  let browser: Browser;
  let page: Page;
  let data: any;
  const outside: string[] = [];
  const maybe = chromiumPath ? test : test.skip;

  /** Opens a dashboard's page at a viewport, every request outside it recorded. */
  async function open(url: string, viewport: { width: number; height: number }): Promise<Page> {
    const p = await browser.newPage({ viewport });
    p.on('request', (r) => {
      if (!r.url().startsWith(url)) outside.push(r.url());
    });
    await p.goto(`${url}/`);
    await p.waitForSelector('body[data-ready]');
    return p;
  }

  beforeAll(async () => {
    if (!chromiumPath) return;
    browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
    page = await open(dash.url, { width: 1040, height: 900 });
    data = await (await fetch(`${dash.url}/data`)).json();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  /**
   * The rings and tooltips of a page against the reply it drew: a ring on each day whose visibility change
   * since the previous measured day the API flags as significant after the Benjamini–Hochberg correction
   * (change.visibility.significant_fdr, recomputed from raw rows in figures-series-changes.test.ts), none on
   * a move significant only before it; each point's tooltip says its move. Returns the days rung and the
   * days significant before the correction.
   */
  async function expectRings(p: Page, series: any): Promise<{ ringed: string[]; uncorrected: string[] }> {
    const measured = series.points.filter((x: any) => x.state === 'measured' && x.visibility.value !== null);
    expect(await p.locator('svg circle.point').count()).toBe(measured.length);
    const ringed = await p.locator('svg circle.significant').evaluateAll((els) => els.map((e) => e.getAttribute('data-day') as string));
    const flagged = (key: 'significant' | 'significant_fdr') =>
      measured.filter((x: any) => x.change?.visibility[key] === true).map((x: any) => x.day as string);
    expect(measured.filter((x: any) => x.change !== null).length).toBe(measured.length - 1);
    expect(ringed).toEqual(flagged('significant_fdr'));
    const shown = (x: number) => `${x > 0 ? '+' : ''}${(Math.round(1000 * x) / 10 || 0).toFixed(1)} pts`;
    const titles = await p.locator('svg circle.point title').allTextContents();
    measured.forEach((x: any, i: number) => {
      const m = x.change?.visibility;
      if (m && m.delta !== null)
        expect(titles[i]).toContain(
          `${shown(m.delta)} since ${x.change.since}: ${m.significant_fdr ? 'a real change' : 'within the noise'}`,
        );
      else expect(titles[i]).not.toContain(' since ');
    });
    return { ringed, uncorrected: flagged('significant') };
  }

  maybe('draws visibility per day with its band, and rings exactly the day-to-day moves the API flags after correction', async () => {
    expect({ ready: await page.getAttribute('body', 'data-ready'), error: await page.textContent('#error') }).toEqual({
      ready: 'true',
      error: '',
    });
    expect(await page.locator('svg polygon.band').count()).toBeGreaterThan(0);
    const { ringed, uncorrected } = await expectRings(page, data.series);
    // The correction only takes flags away: every ring is among the moves significant before it.
    expect(uncorrected).toEqual(expect.arrayContaining(ringed));
    expect(await page.locator('[data-comparability]').textContent()).toMatch(
      /^(Compared with \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}|There is no earlier period)/,
    );
    expect(await page.locator('#legend').textContent()).toContain('where the true share most likely lies');
    expect(await page.locator('#methods').textContent()).toContain('Benjamini–Hochberg');
  });

  maybe('lists the competitors with their ranks, and what changed since the previous run', async () => {
    const rows = await page
      .locator('#competitors tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows).toHaveLength(data.competitors.items.length + 1);
    const tracked = rows.find((r) => r[1] === data.competitors.tracked.name);
    expect(tracked?.[0]).toBe(String(data.competitors.tracked.rank));
    // "new" only for a brand named now and not before.
    for (const row of rows.filter((r) => r[4] === 'new')) expect(Number(row[2])).toBeGreaterThan(0);
    const entered = await page.locator('[data-list="brands-entered"]').textContent();
    expect(entered).toContain(`(${data.run.changes.brands.entered_total})`);
    expect(await page.locator('[data-run-visibility] [data-significant]').getAttribute('data-significant')).toBe(
      String(data.run.changes.visibility.significant_fdr ?? data.run.changes.visibility.significant),
    );
  });

  maybe('whose sites are cited: owned, competitor and other, whose citations add up to all citations', async () => {
    const categories = data.sources.categories;
    const shown = await page.locator('#categories tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-category')));
    expect(shown).toEqual(['owned', 'competitor', 'other']);
    const { owned, competitor, other } = categories;
    expect(owned.numerator + competitor.numerator + other.numerator).toBe(owned.denominator);
    expect(await page.locator('[data-category="owned"] td').nth(1).textContent()).toContain(`${owned.numerator} of ${owned.denominator}`);
  });

  maybe('the segment switch redraws the headline and the line from the segment, whose counts add up to the pooled ones', async () => {
    const pooled = data.series.summary.visibility;
    const { branded, non_branded } = data.series.segments;
    expect(branded.visibility.numerator + non_branded.visibility.numerator).toBe(pooled.numerator);
    expect(branded.visibility.denominator + non_branded.visibility.denominator).toBe(pooled.denominator);
    const shown = (x: number | null) => (x === null ? '–' : `${(100 * x).toFixed(1)}%`);
    await page.click('[data-segment="non_branded"]');
    expect(await page.locator('[data-figure="visibility"]').textContent()).toBe(shown(non_branded.visibility.value));
    expect(await page.locator('#subtitle').textContent()).toContain('prompts that do not name the brand');
    // The line is the segment's days: each point and ring from that kind of prompt's figures of the day.
    const days = data.series.points.map((p: any) => (p.segments ? { day: p.day, state: p.state, ...p.segments.non_branded } : p));
    await expectRings(page, { points: days });
    const titles = await page.locator('svg circle.point title').allTextContents();
    const first = days.find((p: any) => p.state === 'measured' && p.visibility.value !== null);
    expect(titles[0]).toContain(`(${first.visibility.numerator} of ${first.visibility.denominator} answers`);
    const pooledFirst = data.series.points.find((p: any) => p.day === first.day);
    expect(pooledFirst.visibility.denominator).toBeGreaterThan(first.visibility.denominator);
    await page.click('[data-segment="all"]');
    await expectRings(page, data.series);
    expect(await page.locator('[data-figure="visibility"]').textContent()).toBe(shown(pooled.value));
    await mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
  });

  maybe('at phone width: nothing wider than the screen, and the same figures', async () => {
    const phone = await open(dash.url, { width: 390, height: 844 });
    try {
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      expect(await phone.locator('[data-figure="visibility"]').textContent()).toBe(
        await page.locator('[data-figure="visibility"]').textContent(),
      );
      await phone.screenshot({ path: PHONE_SCREENSHOT, fullPage: true });
    } finally {
      await phone.close();
    }
  });

  maybe('an analysis never collected says so: no chart, no brand called "new", no "null to null"', async () => {
    const never = await startDashboard({ baseUrl: api.baseUrl, key: key(), analysis: manifest.analyses.never_collected });
    try {
      const p = await open(never.url, { width: 1040, height: 900 });
      expect({ ready: await p.getAttribute('body', 'data-ready'), error: await p.textContent('#error') }).toEqual({
        ready: 'true',
        error: '',
      });
      expect(await p.locator('[data-state="never_collected"]').textContent()).toContain('No collection yet');
      expect(await p.locator('#measured').isVisible()).toBe(false);
      const text = (await p.locator('body').innerText()).toLowerCase();
      expect(text).not.toContain('null');
      expect(text).not.toMatch(/\bnew\b/);
      await p.close();
    } finally {
      await never.close();
    }
  });

  maybe('extraction late: a flag and a marked day, not a vanished one', async () => {
    const late = await startDashboard({ baseUrl: api.baseUrl, key: key(), analysis: manifest.analyses.extraction_late });
    try {
      const p = await open(late.url, { width: 1040, height: 900 });
      const lateData = await (await fetch(`${late.url}/data`)).json();
      expect(lateData.series.context.extraction_late).toBe(true);
      expect(await p.locator('[data-state="extraction_late"]').count()).toBe(1);
      const lateDays = lateData.series.points.filter((pt: any) => pt.state === 'extraction_late').map((pt: any) => pt.day);
      expect(lateDays.length).toBeGreaterThan(0);
      expect(await p.locator('svg rect.late').evaluateAll((els) => els.map((e) => e.getAttribute('data-day')))).toEqual(lateDays);
      await p.close();
    } finally {
      await late.close();
    }
  });

  maybe('a move the API flags after correction is rung, its tooltip saying so', async () => {
    const fixture = await startDashboard({ baseUrl: api.baseUrl, key: FIG_SECRET, analysis: FIG_ANALYSIS });
    try {
      const p = await open(fixture.url, { width: 1040, height: 900 });
      const fixtureData = await (await fetch(`${fixture.url}/data`)).json();
      const { ringed } = await expectRings(p, fixtureData.series);
      // test/fixtures/figures.ts: 0 of 6 answers name the brand on 2025-03-01, 6 of 6 on 2025-03-08.
      expect(ringed).toContain('2025-03-08');
      expect(await p.locator('svg circle.significant[data-day="2025-03-08"] title').textContent()).toContain(
        '+100.0 pts since 2025-03-01: a real change',
      );
      await p.close();
    } finally {
      await fixture.close();
    }
  });

  maybe('the page loads nothing from anywhere else', () => {
    expect(outside).toEqual([]);
  });
});
