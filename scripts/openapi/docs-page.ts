import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DOCS_CSP, REFERENCE_HEADERS, REFERENCE_PATH } from '#shared/rest/reference-page.js';
import { OPENAPI_FILE } from '#shared/rest/serialize-openapi.js';
import type { LocalPage, LocalPages } from '../../local/adapter.js';
import { addCodeSamples } from './code-samples.js';

/**
 * The human reference page (`npm run docs`, served by `npm start` at /docs): Redoc, as Redocly CLI's
 * `build-docs --inlineBundle` renders openapi/openapi.json with the request samples of every operation
 * added (x-codeSamples: curl, the TypeScript client, the Python client; scripts/openapi/code-samples.ts),
 * in one self-contained HTML file. The samples are the page's, not the served document's: they would
 * take openapi.json past its size target (docs/openapi.md) and say nothing a generated client needs. Built rather
 * than committed: it is a large generated bundle, quick to rebuild whenever openapi.json changes (the stamp
 * in the file says which document and renderer it was built from). The openapi function's bundling builds
 * it too and ships it beside the bundle, which serves it at REFERENCE_PATH (lib/stateless-stack.ts).
 */
export const DOCS_FILE = 'dist/docs/index.html';

/**
 * Remote assets Redoc 3 still names with --inlineBundle: the "API docs by Redocly" logo of the sidebar
 * (fetched on every load) and the base addresses of its icon sets. The logo becomes an inline SVG of the
 * same word; the icon bases an empty data: address (nothing to fetch). build() refuses a page that still
 * names any cdn host.
 */
const LOGO = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="58" height="14"><text x="0" y="11" font-family="sans-serif" font-size="11" fill="#4a4a4a">Redocly</text></svg>',
)}`;
const REMOTE: ReadonlyArray<[RegExp, string]> = [
  [/https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g, LOGO],
  [/https:\/\/cdn\.redocly\.com\/icons\/[a-z]+\/[0-9.]+/g, 'data:,'],
];

const require = createRequire(import.meta.url);
const CLI = require.resolve('@redocly/cli/bin/cli.js');
const RENDERER = `redocly-cli ${(require('@redocly/cli/package.json') as { version: string }).version}`;
/** Bumped when rewrite() changes, so pages built by an older rewrite are rebuilt. */
const REWRITE_VERSION = 2;

const stampOf = (openapiText: string) =>
  createHash('sha256').update(`${RENDERER}\n${REWRITE_VERSION}\n${DOCS_CSP}\n${LOGO}\n${openapiText}`).digest('hex').slice(0, 16);
const STAMP = /<!-- geo-docs ([0-9a-f]{16}) -->/;

/** The stamp a page carries at the head of its <head>, if any. */
export const stampIn = (html: string): string | undefined => STAMP.exec(html.slice(0, 500))?.[1];

/** The page as served: remote assets replaced, the CSP and the stamp put first in <head>. */
export function rewrite(html: string, stamp: string): string {
  let out = html;
  for (const [pattern, local] of REMOTE) out = out.replace(pattern, local);
  const left = out.match(/https?:\/\/cdn\.[a-z0-9.-]+/i);
  if (left) throw new Error(`the docs page still names ${left[0]}: add it to REMOTE in scripts/openapi/docs-page.ts`);
  if (!/<head>/.test(out)) throw new Error('the docs page has no <head>');
  const csp = `<meta http-equiv="Content-Security-Policy" content="${DOCS_CSP}">`;
  return out.replace('<head>', `<head>\n  <!-- geo-docs ${stamp} -->\n  ${csp}`);
}

/** Builds under way, so that a server stopping mid-build ends them too. */
const running = new Set<ChildProcess>();

function run(args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    // Background work: under npm start it must not slow the store and the API starting beside it.
    if (child.pid !== undefined) setPriority(child.pid, 10);
    child.on('exit', () => running.delete(child));
    let log = '';
    child.stdout.on('data', (c: Buffer) => (log += c.toString()));
    child.stderr.on('data', (c: Buffer) => (log += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`redocly ${args[0]} exited with ${code}:\n${log}`))));
  });
}

export interface DocsPage {
  file: string;
  bytes: number;
  /** False when the page on disk was already built from this document by this renderer. */
  built: boolean;
}

/** The document the page renders: openapi.json with the request samples of every operation. */
export function pageDocument(openapiText: string): string {
  return `${JSON.stringify(addCodeSamples(JSON.parse(openapiText) as Record<string, unknown>), null, 1)}\n`;
}

/** The stamp of a page built now from root's openapi/openapi.json, with its samples. */
export async function currentStamp(root: string): Promise<string> {
  return stampOf(pageDocument(await readFile(join(root, OPENAPI_FILE), 'utf8')));
}

/** Builds the page from openapi/openapi.json into `out` (relative to root, or absolute), unless it is up to date. */
export async function buildDocsPage(root: string, opts: { out?: string; force?: boolean } = {}): Promise<DocsPage> {
  const file = resolve(root, opts.out ?? DOCS_FILE);
  const source = pageDocument(await readFile(join(root, OPENAPI_FILE), 'utf8'));
  // The stamp covers the samples too: a changed sample rebuilds the page even when openapi.json did not change.
  const stamp = stampOf(source);
  if (!opts.force) {
    const existing = await readFile(file, 'utf8').catch(() => '');
    if (stampIn(existing) === stamp) return { file, bytes: Buffer.byteLength(existing), built: false };
  }
  await mkdir(dirname(file), { recursive: true });
  const raw = `${file}.${process.pid}.raw.html`;
  const document = `${file}.${process.pid}.openapi.json`;
  try {
    await writeFile(document, source);
    await run(['build-docs', document, '--inlineBundle', '--output', raw, '--title', 'GEO measurement API reference'], root);
    const html = rewrite(await readFile(raw, 'utf8'), stamp);
    await writeFile(`${file}.${process.pid}`, html);
    await rename(`${file}.${process.pid}`, file);
    return { file, bytes: Buffer.byteLength(html), built: true };
  } finally {
    await rm(raw, { force: true });
    await rm(document, { force: true });
  }
}

export interface ServedDocs {
  /** For startApi(): GET /api/v1/docs, where a deployed stage serves it, and /docs and /docs/ for short. */
  pages: LocalPages;
  /** Settles when the page is ready (built now, or already up to date) or could not be built. */
  ready: Promise<DocsPage>;
  /** Ends a build still under way. */
  close(): void;
}

/**
 * The reference page as `npm start` serves it: built (when stale) in the background while the API
 * starts, so a first start is not slowed down; until then /docs answers 503 with Retry-After.
 */
export function serveDocs(root: string, opts: { out?: string; force?: boolean } = {}): ServedDocs {
  let html: Buffer | undefined;
  let failure: string | undefined;
  const ready = buildDocsPage(root, opts).then(async (page) => {
    html = await readFile(page.file);
    return page;
  });
  ready.catch((err: unknown) => {
    failure = err instanceof Error ? err.message.split('\n')[0] : String(err);
  });
  const text = (status: number, body: string, extra: Record<string, string> = {}) => ({
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...extra },
    body,
  });
  const page: LocalPage = async () => {
    if (html) {
      return {
        status: 200,
        headers: { ...REFERENCE_HEADERS, 'cache-control': 'no-cache' },
        body: html,
      };
    }
    if (failure) return text(500, `The reference page could not be built (${failure}). \`npm run docs\` shows why.\n`);
    return text(503, 'The reference page is being built from openapi/openapi.json (a few seconds). Reload shortly.\n', {
      'retry-after': '5',
    });
  };
  return {
    pages: { [REFERENCE_PATH]: page, '/docs': page, '/docs/': page },
    ready,
    close: () => {
      for (const child of running) child.kill();
    },
  };
}
