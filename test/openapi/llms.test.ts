import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { LLMS_FILE, LLMS_FULL_FILE, llmsFull, llmsIndex, readLlmsSources } from '../../scripts/openapi/llms.js';

/**
 * llms.txt and llms-full.txt (scripts/openapi/llms.ts) are what the current document and docs make, and
 * say what a client needs: every read with its method and path, every page a client author reads, the
 * samples, no host of ours.
 */
const root = process.cwd();
const HINT = 'run `npm run openapi`, or `npx tsx scripts/openapi/llms.ts` after editing a page';

describe('llms.txt and llms-full.txt', () => {
  test('the committed files are what the document and the docs make now', async () => {
    const sources = await readLlmsSources(root);
    const index = readFileSync(join(root, LLMS_FILE), 'utf8');
    const full = readFileSync(join(root, LLMS_FULL_FILE), 'utf8');
    if (index !== llmsIndex(sources)) throw new Error(`${LLMS_FILE} is stale: ${HINT}`);
    if (full !== llmsFull(sources)) throw new Error(`${LLMS_FULL_FILE} is stale: ${HINT}`);
  });

  test('the index lists every operation of the document and links only files of the repository', () => {
    const doc = JSON.parse(readFileSync(join(root, 'openapi/openapi.json'), 'utf8'));
    const index = readFileSync(join(root, LLMS_FILE), 'utf8');
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>))
      for (const [method, op] of Object.entries(item))
        expect(index).toContain(`- \`${op.operationId}\`: \`${method.toUpperCase()} ${path}\``);
    const links = [...index.matchAll(/\]\(([^)#]+)(#[^)]*)?\)/g)].map((m) => m[1] as string).filter((l) => !/^https?:/.test(l));
    expect(links.length).toBeGreaterThan(10);
    for (const link of links) expect({ link, exists: (() => readFileSync(join(root, link)) && true)() }).toEqual({ link, exists: true });
  });

  test('the full file holds each read with its three samples, and the pages a client author reads', () => {
    const full = readFileSync(join(root, LLMS_FULL_FILE), 'utf8');
    expect(full.match(/^### `/gm)).toHaveLength(19);
    expect(full).toContain('geo.list_answers("acme-core", window="7d", limit=20)');
    expect(full).toContain("geo.listAnswers({ analysis: 'acme-core', window: '7d', limit: 20 })");
    expect(full).toContain('"$GEO_BASE_URL/analyses/acme-core/answers?window=7d&limit=20"');
    for (const page of ['docs/contract.md', 'docs/clients.md', 'docs/errors.md']) expect(full).toContain(`<!-- ${page} -->`);
    // The operations part names no host: the samples take the base address from GEO_BASE_URL.
    const operations = full.slice(full.indexOf('## Operations'), full.indexOf('## Pages'));
    expect(operations).not.toMatch(/127\.0\.0\.1|localhost|:3000/);
  });
});
