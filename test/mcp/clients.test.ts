import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { reads } from '#shared/reads/registry.js';
import type { LocalApi } from '../../local/stack.js';
import { manifest, startTestApi } from '../support/api.js';
import { freshConfigDir, INSPECTOR, MCP_REMOTE, npx, type Run } from './clients.js';

/**
 * The refusals a host shows its user, through the real clients (pinned, see clients.ts), started as a user would from
 * docs/mcp.md. A valid key lists one tool per read; a missing or revoked key ends with a message naming the
 * cause, not an OAuth prompt, a browser, or an SSE error. Both clients start OAuth on any 401 (they
 * read no body first): the Inspector CLI with --stored-auth-only refuses to and shows our 401 body;
 * mcp-remote tries OAuth discovery and client registration, whose addresses answer 404 saying that
 * there is no OAuth and that the key was refused, and --transport http-only keeps it from falling back
 * to the old SSE transport after that.
 */
let api: LocalApi;
let url: string;
beforeAll(async () => {
  api = await startTestApi();
  url = `${api.baseUrl}/mcp`;
  // Fetch both clients into the npm cache once, outside the timed parts.
  await Promise.all([npx(MCP_REMOTE, ['--version'], { timeoutMs: 300_000 }), npx(INSPECTOR, ['--version'], { timeoutMs: 300_000 })]);
}, 600_000);
afterAll(() => api?.close());

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'geo-test', version: '1.0.0' } },
});
const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });

/** Nothing that looks like an OAuth prompt or the SSE fallback. */
function expectNoOAuthPromptNorSse(run: Run): void {
  const all = run.stdout + run.stderr;
  expect(all).not.toMatch(/SSE error|Please authorize|Opening browser|open this URL|authorization_endpoint|Waiting for authorization/i);
}

describe(`mcp-remote (${MCP_REMOTE}), as Claude Desktop runs it`, () => {
  const remote = (auth: string | undefined, until: (r: Run) => boolean) =>
    // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands ${GEO_API_AUTH} from its environment itself
    npx(MCP_REMOTE, [url, '--transport', 'http-only', ...(auth === undefined ? [] : ['--header', 'Authorization:${GEO_API_AUTH}'])], {
      env: { GEO_API_AUTH: auth ?? '', MCP_REMOTE_CONFIG_DIR: freshConfigDir() },
      stdin: [INITIALIZE, INITIALIZED, LIST],
      until,
      timeoutMs: 60_000,
    });

  test('a valid key: initialize, then every tool', async () => {
    const run = await remote(`Bearer ${manifest.keys.workspace}`, (r) => r.stdout.includes('"id":2'));
    const list = run.stdout
      .split('\n')
      .filter((l) => l.includes('"id":2'))
      .map((l) => JSON.parse(l) as { result: { tools: Array<{ name: string }> } })[0];
    expect(list?.result.tools.map((t) => t.name).sort()).toEqual(reads.map((r) => r.name).sort());
  }, 120_000);

  test.each([
    ['revoked', () => `Bearer ${manifest.keys.revoked}`, 'the key this client sent was refused (401): it is unknown, revoked or expired'],
    ['missing', () => undefined, 'this client sent none (401 unauthorized)'],
  ])(
    'a %s key: it exits saying there is no OAuth, and why the key was refused',
    async (_label, auth, cause) => {
      const run = await remote(auth(), () => false);
      expect(run.code).not.toBe(0);
      const fatal = run.stderr.split('\n').find((l) => l.includes('Fatal error'));
      expect(fatal).toContain('No OAuth here: this API authenticates with an API key');
      expect(fatal).toContain(cause);
      expectNoOAuthPromptNorSse(run);
    },
    120_000,
  );
});

describe(`MCP Inspector CLI (${INSPECTOR})`, () => {
  const inspect = (key: string | null, ...extra: string[]) =>
    npx(
      INSPECTOR,
      [
        '--cli',
        url,
        '--transport',
        'http',
        '--method',
        'tools/list',
        '--stored-auth-only',
        ...(key ? ['--header', `Authorization: Bearer ${key}`] : []),
        ...extra,
      ],
      {
        env: { MCP_INSPECTOR_SECRET_STORE: 'memory' },
        timeoutMs: 60_000,
      },
    );

  test('a valid key lists every tool', async () => {
    const run = await inspect(manifest.keys.workspace);
    expect(run.code).toBe(0);
    const { tools } = JSON.parse(run.stdout) as { tools: Array<{ name: string }> };
    expect(tools.map((t) => t.name).sort()).toEqual(reads.map((r) => r.name).sort());
  }, 120_000);

  test.each([
    ['revoked', () => manifest.keys.revoked, 'key_revoked'],
    ['missing', () => null, 'unauthorized'],
  ])(
    'a %s key: it stops with our 401 body, naming its code',
    async (_label, key, code) => {
      const run = await inspect(key());
      expect(run.code).not.toBe(0);
      // The CLI writes its error envelope as one JSON line on stderr.
      const line = run.stderr.split('\n').find((l) => l.startsWith('{"error"'));
      const message = (JSON.parse(line ?? 'null') as { error: { message: string } }).error.message;
      expect(message).toContain(`"code":"${code}"`);
      expectNoOAuthPromptNorSse(run);
    },
    120_000,
  );
});
