import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type Browser, chromium, type Page } from 'playwright-core';
import { DOCS_CSP_HEADER } from '#shared/rest/reference-page.js';
import { OPENAPI_FILE } from '#shared/rest/serialize-openapi.js';
import { freshTableName, type LocalApi, startApi } from '../../local/stack.js';
import { createBudgetTable } from '../../local/stores.js';
import { type ServedDocs, serveDocs } from '../../scripts/openapi/docs-page.js';
import type { OpenApiDocument } from '../../scripts/openapi/document.js';
import { dynamoEndpoint, readerUrl, testConfig } from '../support/api.js';
import { debianInstallHint, findDebianBinary } from '../support/debian.js';

/**
 * The reference page built from openapi.json (`npm run docs`), served at /docs by the
 * local server as `npm start` runs it, opened in headless Chromium (Debian's package; where it is not
 * installed the tests are skipped with the command that installs it): every operation listed with its
 * example, no request to any other host, a screenshot kept in .local/screenshots/ (gitignored).
 */

const root = join(import.meta.dirname, '..', '..');
const SCREENSHOT = join(root, '.local', 'screenshots', 'docs-get_metrics.png');
/** Without the background-networking flags Chromium calls Google's hosts at every start. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Debian's Chromium; nothing installs it here (scripts/install-debian-packages.sh does, as root). */
const chromiumPath = findDebianBinary('/usr/bin/chromium');
const SKIPPED = chromiumPath ? '' : ` (skipped: Debian's chromium is not installed; ${debianInstallHint('chromium')})`;
if (SKIPPED) console.warn(`test/openapi/docs.test.ts${SKIPPED}`);

const doc = JSON.parse(await readFile(join(root, OPENAPI_FILE), 'utf8')) as OpenApiDocument;
const operations = Object.values(doc.paths).flatMap((item) =>
  Object.values(item).map((op) => {
    const name = String(op.operationId);
    // GET and DELETE /mcp answer only 405: no example, their refusal is what their page must show.
    const ref = (op.responses['200'] as any)?.content['application/json'].examples.demo.$ref as string | undefined;
    const example = ref ? (doc.components.examples as any)[ref.split('/').pop() as string].value : undefined;
    return { name, id: `${(op.tags as string[])[0]}/${name}`, summary: String(op.summary), example, statuses: Object.keys(op.responses) };
  }),
);

/**
 * What of an example the page shows before anything is clicked: Redoc unfolds samples two levels deep,
 * so the `"key": value` pairs of plain values at most two object keys down (short, unescaped ones).
 */
function visibleLeaves(value: unknown, depth = 1): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value) || depth > 2) return [];
  return Object.entries(value).flatMap(([k, v]) => {
    if (v === null || typeof v !== 'object') {
      const text = JSON.stringify(v);
      return text.length <= 80 && !text.includes('\\') ? [`"${k}": ${text}`] : [];
    }
    return visibleLeaves(v, depth + 1);
  });
}

let dir: string;
let docs: ServedDocs;
let api: LocalApi;
let browser: Browser;
let page: Page;
const outside: string[] = [];
const consoleErrors: string[] = [];

// With Chromium missing every test is skipped, and Jest then runs neither hook.
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geo-docs-'));
  // `npm run docs` and `npm start` build the same way; here into a temporary file, from the committed document.
  docs = serveDocs(root, { out: join(dir, 'index.html'), force: true });
  const table = freshTableName();
  await createBudgetTable(dynamoEndpoint(), table);
  api = await startApi(testConfig(readerUrl(), { BUDGET_TABLE: table }), 0, '127.0.0.1', docs.pages);
  await docs.ready;
  browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const origin = new URL(api.url).origin;
  // Every request of the page and of its workers goes through here: the page's own origin, or blob:/data:
  // addresses it makes itself, pass; anything else is recorded and refused.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`) || url.startsWith('blob:') || url.startsWith('data:')) return route.continue();
    outside.push(url);
    return route.abort();
  });
  context.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith('blob:') && !url.startsWith('data:') && !outside.includes(url)) outside.push(url);
  });
  page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(`${api.url}/docs`, { waitUntil: 'networkidle' });
}, 15 * 60_000);

afterAll(async () => {
  await browser?.close();
  docs?.close();
  await api?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

(chromiumPath ? describe : describe.skip)(`the reference page${SKIPPED}`, () => {
  test('the base URL links it, beside the document and the MCP endpoint, where the stack serves it', async () => {
    const index = await (await fetch(`${api.baseUrl}/`)).json();
    expect(index.links).toEqual({ openapi: '/api/v1/openapi.json', mcp: '/api/v1/mcp', reference: '/api/v1/docs' });
    const linked = await fetch(new URL(index.links.reference, api.url));
    expect(linked.status).toBe(200);
    const page = await linked.text();
    expect(page).toContain('<title>GEO measurement API reference</title>');
    // The short address serves the same page.
    expect(await (await fetch(`${api.url}/docs`)).text()).toBe(page);
  });

  test('GET /docs serves one self-contained HTML page under a policy that forbids other origins', async () => {
    const res = await fetch(`${api.url}/docs`);
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(DOCS_CSP_HEADER);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(html).toContain('<title>GEO measurement API reference</title>');
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)="https?:/i);
    expect(html).not.toMatch(/https?:\/\/cdn\./i);
    expect(Buffer.byteLength(html)).toBeGreaterThan(1_000_000); // the renderer is inside
    // Like every answer of the local stack, it carries a request id; HEAD answers as GET without a body.
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const head = await fetch(`${api.url}/docs`, { method: 'HEAD' });
    expect({ status: head.status, type: head.headers.get('content-type'), body: await head.text() }).toEqual({
      status: 200,
      type: 'text/html; charset=utf-8',
      body: '',
    });
  });

  test('every operation of openapi.json is listed, and its page shows the example of its response (or its refusals)', async () => {
    expect(operations.length).toBe(Object.values(doc.paths).flatMap((p) => Object.values(p)).length);
    for (const op of operations) {
      await page.evaluate((hash) => {
        window.location.hash = hash;
      }, `#/${op.id}`);
      const section = page.locator(`[id="${op.id}"]`);
      await section.waitFor({ timeout: 30_000 });
      await section.scrollIntoViewIfNeeded();
      expect(await page.locator(`a[href="#/${op.id}"]`).first().innerText()).toContain(op.summary.slice(0, 20));
      const text = (await section.innerText()).replace(/\s+/g, ' ');
      if (op.example === undefined) {
        for (const status of op.statuses)
          expect({ op: op.name, shown: text.includes(status) ? status : `missing ${status}` }).toEqual({ op: op.name, shown: status });
        continue;
      }
      const leaves = visibleLeaves(op.example);
      expect({ op: op.name, leaves: leaves.length > 0 }).toEqual({ op: op.name, leaves: true });
      for (const leaf of leaves.slice(0, 8))
        expect({ op: op.name, shown: text.includes(leaf) ? leaf : `missing ${leaf}` }).toEqual({ op: op.name, shown: leaf });
    }
  }, 300_000);

  test('the page asked nothing of any other host, and broke no rule of its policy', () => {
    expect(outside).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  test('a screenshot of an operation page is kept', async () => {
    await page.evaluate(() => {
      window.location.hash = '#/figures/get_metrics';
    });
    await page.locator('[id="figures/get_metrics"]').waitFor();
    await page.waitForTimeout(1000); // the sidebar animates its groups open
    await mkdir(join(root, '.local', 'screenshots'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect((await stat(SCREENSHOT)).size).toBeGreaterThan(20_000);
  });
});
