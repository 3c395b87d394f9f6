import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { afterAll, expect, test } from '@jest/globals';
import { SDK_NODE_WARNING_OFF } from '../../local/node-notice.js';

let child: ChildProcess | undefined;
/**
 * Stopped and waited for: a server left shutting down holds the jest worker open (its process and pipes)
 * past the end of the run, and could still write .local/ while another file reads it.
 */
afterAll(async () => {
  const running = child;
  if (!running || running.exitCode !== null || running.signalCode !== null) return;
  const exited = new Promise((resolve) => running.once('exit', resolve));
  running.kill('SIGTERM');
  const stuck = setTimeout(() => running.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(stuck);
}, 20_000);

/** README's `npm start`, as a person runs it: embedded stores, demo, keys printed, demo.json written. */
test('npm start serves the API with the demo and prints working keys', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', LOG_LEVEL: 'SILENT' };
  delete env.DATABASE_URL;
  delete env.NODE_OPTIONS;
  // As a person's shell has it: the suites' setup turns the SDK's Node warning off, a person's does not.
  for (const name of Object.keys(SDK_NODE_WARNING_OFF)) delete env[name];
  // node itself (not npx) so that killing the child really stops the server.
  child = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start line within 90 s:\n${out}`)), 60_000);
    child!.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /API on (http:\/\/127\.0\.0\.1:\d+\/api\/v1)/.exec(out);
      if (m && out.includes('try: curl')) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    child!.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${out}`)));
  });
  // No warning of npm's or the SDK's; on a Node older than the SDK's coming floor, one line that says so.
  expect(err).not.toMatch(/EBADENGINE|NodeVersionSupportWarning/);
  const notes = err.split('\n').filter((line) => line.startsWith('note: Node'));
  expect(notes).toHaveLength(Number(process.versions.node.split('.')[0]) < 22 ? 1 : 0);
  const demo = JSON.parse(await readFile('.local/demo.json', 'utf8'));
  expect(demo.base_url).toBe(baseUrl);
  for (const label of [
    'workspace',
    'brand',
    'analysis',
    'empty_scope',
    'revoked',
    'expired',
    'creator_removed',
    'creator_suspended',
    'plan_without_api',
    'other_workspace',
    'small_budget',
  ]) {
    expect(demo.keys[label]).toMatch(/^geo_live_/);
    expect(out).toContain(demo.keys[label]);
  }
  for (const label of ['collected', 'other_brand', 'never_collected', 'extraction_late', 'other_workspace']) {
    expect(typeof demo.analyses[label]).toBe('string');
  }
  const res = await fetch(`${baseUrl}/analyses/${demo.analyses.collected}`, {
    headers: { authorization: `Bearer ${demo.keys.workspace}` },
  });
  expect(res.status).toBe(200);
  expect((await res.json()).slug).toBe(demo.analyses.collected);
  // The reference page, built from openapi.json while the store started (503 with Retry-After until then).
  const docsUrl = baseUrl.replace(/\/api\/v1$/, '/docs');
  let docs = await fetch(docsUrl);
  for (let i = 0; docs.status === 503 && i < 90; i++) {
    expect(docs.headers.get('retry-after')).toBe('5');
    await new Promise((r) => setTimeout(r, 1000));
    docs = await fetch(docsUrl);
  }
  expect(docs.status).toBe(200);
  expect(docs.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(await docs.text()).toContain('GEO measurement API reference');
}, 180_000);

/**
 * What `npm ci` checks before it warns EBADENGINE: every installed package's `engines.node` against the
 * Node running it. Here against both ends of what the project runs on, whichever Node runs the test: the
 * oldest package.json allows and the major .nvmrc names (the Lambda runtime's).
 */
test('every installed package admits the oldest Node package.json allows and the .nvmrc major', async () => {
  const semver = (await import('semver')).default;
  const root = JSON.parse(await readFile('package.json', 'utf8')) as { engines: { node: string } };
  const oldest = semver.minVersion(root.engines.node)?.version;
  const lambda = `${(await readFile('.nvmrc', 'utf8')).trim()}.0.0`;
  const lock = JSON.parse(await readFile('package-lock.json', 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } | string[] }>;
  };
  const refused: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (!path || !range || !existsSync(path)) continue;
    for (const node of [oldest, lambda])
      if (node && !semver.satisfies(node, range, { includePrerelease: true })) refused.push(`${path} (${range}) refuses Node ${node}`);
  }
  expect({ oldest, lambda, refused }).toEqual({
    oldest: expect.stringMatching(/^\d+\.\d+\.\d+$/),
    lambda: expect.any(String),
    refused: [],
  });
});
