import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { reads as registeredReads } from '#shared/reads/registry.js';
import { OPENAPI_FILE } from '#shared/rest/serialize-openapi.js';
import type { LocalApi } from '../../local/stack.js';
import { SAMPLE_CALLS } from '../../scripts/openapi/code-samples.js';
import { buildDocsPage, pageDocument } from '../../scripts/openapi/docs-page.js';
import { freshVenv, type PythonVenv, pythonUnavailable, runPython } from '../clients/python-venv.js';
import { call, manifest, startTestApi } from '../support/api.js';

/**
 * The request samples of the reference page (x-codeSamples, scripts/openapi/code-samples.ts, added to the
 * document the page renders), each run as a reader would paste it, against the local stack: curl in
 * bash, the Python client in a fresh virtual environment, the TypeScript client (clients/typescript,
 * built) with tsx. Each must exit 0 and print what the same read answers.
 */
const run = promisify(execFile);
type Sample = { lang: string; source: string };
type Operation = { operationId: string; 'x-codeSamples'?: Sample[] };
const doc = JSON.parse(pageDocument(readFileSync(OPENAPI_FILE, 'utf8'))) as { paths: Record<string, Record<string, Operation>> };
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ path, method, op, id: op.operationId })),
);
const reads = operations.filter((o) => o.id in SAMPLE_CALLS);
const sampleOf = (id: string, lang: string): string => {
  const found = operations.find((o) => o.id === id)?.op['x-codeSamples']?.find((s) => s.lang === lang);
  if (!found) throw new Error(`${id} has no ${lang} sample`);
  return found.source;
};

const pythonMissing = pythonUnavailable();
const TS_CLIENT = join(process.cwd(), 'clients', 'typescript', 'dist', 'index.js');
const tsMissing = existsSync(TS_CLIENT) ? undefined : 'clients/typescript is not built (npm run build -w @geo-api/client)';
if (pythonMissing) console.warn(`code samples: the Python ones skipped: ${pythonMissing}`);
if (tsMissing) console.warn(`code samples: the TypeScript ones skipped: ${tsMissing}`);

let api: LocalApi;
let env: Record<string, string>;
let expected: Record<string, string>;
beforeAll(async () => {
  api = await startTestApi();
  const key = manifest.keys.workspace;
  const answers = await call(api, '/analyses/acme-core/answers?limit=1', key);
  env = { GEO_BASE_URL: api.baseUrl, GEO_API_KEY: key, ANSWER_ID: answers.body.items[0].id };
  // What each TypeScript or Python sample should print: the shown value of the same call, made here.
  expected = {};
  for (const { id, path } of reads) {
    const sample = SAMPLE_CALLS[id] as (typeof SAMPLE_CALLS)[string];
    const args = { ...sample.args, ...(sample.from ? { [sample.from.param]: env[sample.from.env] } : {}) };
    let url = path;
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(args)) {
      if (url.includes(`{${k}}`)) url = url.replace(`{${k}}`, encodeURIComponent(String(v)));
      else query.set(k, String(v));
    }
    const reply = await call(api, `${url}${query.size ? `?${query}` : ''}`, key);
    let value: unknown = reply.body;
    for (const step of sample.show) value = step === 'length' ? (value as unknown[]).length : (value as Record<string, unknown>)[step];
    // The budget left moves with every call (this one, the sample's own): any count will do there.
    if (sample.show.includes('remaining')) expected[id] = '\\d+';
    else expected[id] = value === null ? 'None|null' : String(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
});
afterAll(() => api?.close());

describe('x-codeSamples', () => {
  test('every operation has samples; every read has curl, TypeScript and Python', () => {
    for (const { id, op } of operations) {
      const langs = (op['x-codeSamples'] ?? []).map((s) => s.lang);
      expect({ id, langs }).toEqual({ id, langs: id in SAMPLE_CALLS ? ['curl', 'TypeScript', 'Python'] : ['curl'] });
    }
    expect(reads).toHaveLength(registeredReads.length);
  });

  test('the reference page carries them: each sample is in the built page', async () => {
    const out = join(process.cwd(), '.local', 'code-samples-page', 'index.html');
    try {
      const page = await buildDocsPage(process.cwd(), { out, force: true });
      const html = readFileSync(page.file, 'utf8');
      for (const { id, op } of operations)
        for (const s of op['x-codeSamples'] ?? [])
          expect({ id, lang: s.lang, inPage: html.includes(JSON.stringify(s.source).slice(1, -1)) }).toEqual({
            id,
            lang: s.lang,
            inPage: true,
          });
    } finally {
      await rm(dirname(out), { recursive: true, force: true });
    }
  }, 120_000);

  test('the served openapi.json stays without them (its size target, docs/openapi.md)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).not.toContain('x-codeSamples');
  });

  test('no sample names a host or a port: the base address comes from GEO_BASE_URL', () => {
    for (const { op } of operations)
      for (const s of op['x-codeSamples'] ?? []) expect(s.source).not.toMatch(/127\.0\.0\.1|localhost|:3000|https?:\/\//);
  });

  test('each curl sample runs in bash and answers what the document describes', async () => {
    for (const { id } of operations) {
      const source = sampleOf(id, 'curl');
      const { stdout } = await run('bash', ['-c', source], { env: { ...process.env, ...env } });
      if (id === 'mcp_open_stream' || id === 'mcp_end_session') {
        // GET and DELETE /mcp answer 405 with Allow, which the sample shows with -i.
        expect(stdout).toMatch(/^HTTP\/1\.1 405 [\s\S]*\r\nallow: POST/i);
      } else if (id === 'mcp') {
        const names = (JSON.parse(stdout).result.tools as Array<{ name: string }>).map((t) => t.name);
        expect(names.sort()).toEqual(Object.keys(SAMPLE_CALLS).sort());
      } else {
        const body = JSON.parse(stdout);
        expect(body.error).toBeUndefined();
        if (id === 'get_openapi') expect(body.openapi).toBe('3.1.0');
      }
    }
  }, 60_000);

  (pythonMissing ? test.skip : test)(
    'each Python sample runs in a fresh virtual environment and prints the value the read answers',
    async () => {
      const venv: PythonVenv = await freshVenv();
      try {
        for (const { id } of reads) {
          const ran = await runPython(venv.python, ['-c', sampleOf(id, 'Python')], { cwd: '/', env });
          if (ran.code !== 0) throw new Error(`${id}: ${ran.stderr}`);
          expect({ id, printed: ran.stdout.trim() }).toEqual({ id, printed: expect.stringMatching(new RegExp(`^(${expected[id]})$`)) });
        }
      } finally {
        await venv.remove();
      }
    },
    180_000,
  );

  (tsMissing ? test.skip : test)(
    'each TypeScript sample runs with tsx and prints the value the read answers',
    async () => {
      const dir = join(process.cwd(), '.local', 'code-samples');
      await mkdir(dir, { recursive: true });
      try {
        for (const { id } of reads) {
          const file = join(dir, `${id}.mts`);
          await writeFile(file, sampleOf(id, 'TypeScript'));
          const { stdout } = await run(join(process.cwd(), 'node_modules', '.bin', 'tsx'), [file], { env: { ...process.env, ...env } });
          expect({ id, printed: stdout.trim() }).toEqual({ id, printed: expect.stringMatching(new RegExp(`^(${expected[id]})$`)) });
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
