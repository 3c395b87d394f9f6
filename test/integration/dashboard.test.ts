import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type Browser, chromium, type Page } from 'playwright-core';
import { excludesZero, newcombe } from '#shared/reads/stats.js';
import { type Dashboard, startDashboard } from '../../examples/dashboard/server.js';
import type { LocalApi } from '../../local/stack.js';
import { call, manifest, startTestApi } from '../support/api.js';
import { debianInstallHint, findDebianBinary } from '../support/debian.js';

/**
 * examples/dashboard, the example a reader copies to draw the figures, against the local stack. Its
 * backend holds the key and proxies the reads (the API sends no CORS headers); the page, opened in
 * headless Chromium (Debian's package; without it the browser tests are skipped, naming the command that
 * installs it), draws visibility per day with its 95% band, rings the significant day-to-day moves,
 * lists the competitors with their ranks and what changed since the previous run. The screenshot is the
 * one docs/figures.md shows.
 */

const root = join(import.meta.dirname, '..', '..');
const SCREENSHOT = join(root, 'docs', 'images', 'dashboard.png');
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
    const series = await call(api, `/analyses/${analysis()}/metrics/timeseries?window=30d`, key());
    expect(data.series).toEqual(series.body);
    const competitors = await call(api, `/analyses/${analysis()}/competitors?window=30d`, key());
    expect(data.competitors).toEqual(competitors.body);
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
  const outside: string[] = [];
  beforeAll(async () => {
    if (!chromiumPath) return;
    browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1040, height: 900 } });
    page.on('request', (r) => {
      if (!r.url().startsWith(dash.url)) outside.push(r.url());
    });
    await page.goto(`${dash.url}/`);
    await page.waitForSelector('body[data-ready]');
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  const maybe = chromiumPath ? test : test.skip;

  maybe('draws visibility per day with its band, and rings exactly the significant moves', async () => {
    expect(await page.getAttribute('body', 'data-ready')).toBe('true');
    const data = await (await fetch(`${dash.url}/data`)).json();
    const measured = data.series.points.filter(
      (p: { state: string; visibility: { value: number | null } }) => p.state === 'measured' && p.visibility.value !== null,
    );
    expect(await page.locator('svg circle.point').count()).toBe(measured.length);
    expect(await page.locator('svg polygon.band').count()).toBeGreaterThan(0);
    // Each ring is a day whose move from the previous measured day has a 95% interval (Newcombe, the API's
    // delta_ci95, itself tested against Newcombe 1998) that excludes 0.
    const ringed = await page.locator('svg circle.significant').evaluateAll((els) => els.map((e) => e.getAttribute('data-day')));
    const expected: string[] = [];
    for (let i = 1; i < measured.length; i++) {
      const [a, b] = [measured[i - 1].visibility, measured[i].visibility];
      if (excludesZero(newcombe(b.numerator, b.denominator, a.numerator, a.denominator))) expected.push(measured[i].day);
    }
    expect(ringed).toEqual(expected);
  });

  maybe('lists the competitors with their ranks, and what changed since the previous run', async () => {
    const data = await (await fetch(`${dash.url}/data`)).json();
    const rows = await page
      .locator('#competitors tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows).toHaveLength(data.competitors.items.length + 1);
    const tracked = rows.find((r) => r[1] === data.competitors.tracked.name);
    expect(tracked?.[0]).toBe(String(data.competitors.tracked.rank));
    const entered = await page.locator('[data-list="brands-entered"]').textContent();
    expect(entered).toContain(`(${data.run.changes.brands.entered_total})`);
    expect(await page.locator('[data-run-visibility] [data-significant]').getAttribute('data-significant')).toBe(
      String(data.run.changes.visibility.significant),
    );
    expect(outside).toEqual([]);
    await mkdir(join(root, 'docs', 'images'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
  });
});
