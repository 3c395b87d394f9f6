import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDocsPage } from './docs-page.js';

/**
 * `npm run docs`: the human reference page, built from openapi/openapi.json into dist/docs/index.html
 * (self-contained: no request to any other host). `npm start` serves it at /docs and rebuilds it when
 * the document changed; this command builds it on purpose (--force: even when up to date).
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const page = await buildDocsPage(root, { force: process.argv.includes('--force') });
console.log(`${page.built ? 'wrote' : 'up to date:'} ${relative(root, page.file)} (${page.bytes} bytes)`);
