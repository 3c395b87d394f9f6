import { copyFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDocsPage } from './docs-page.js';

/**
 * `npm run docs`: the human reference page, built from openapi/openapi.json into dist/docs/index.html
 * (self-contained: no request to any other host). `npm start` serves it at /docs and rebuilds it when
 * the document changed; this command builds it on purpose (--force: even when up to date). The openapi
 * function's bundling runs it with `--copy-to FILE`: built when stale, then copied there.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const page = await buildDocsPage(root, { force: args.includes('--force') });
console.log(`${page.built ? 'wrote' : 'up to date:'} ${relative(root, page.file)} (${page.bytes} bytes)`);
const at = args.indexOf('--copy-to');
if (at >= 0) {
  const target = args[at + 1];
  if (!target) throw new Error('--copy-to needs a file');
  await copyFile(page.file, target);
}
