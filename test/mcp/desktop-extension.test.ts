import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { inflateRawSync } from 'node:zlib';
import { getMcpConfigForManifest, hasRequiredConfigMissing, type McpbManifestAny } from '@anthropic-ai/mcpb/browser';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { reads } from '#shared/reads/registry.js';
import { withoutCredentials } from '../../examples/claude-desktop/bridge.js';
import type { LocalApi } from '../../local/stack.js';
import { call, manifest as demo, startTestApi } from '../support/api.js';

/**
 * The Claude Desktop extension as a user gets it. `npm run mcpb` (scripts/mcpb/build.ts)
 * builds and packs it; the bundle is started the way Claude Desktop starts it (the manifest's command, args
 * and env, with the settings substituted by mcpb's own code, which Claude Desktop uses) and spoken to
 * through the MCP SDK's stdio client, against the local stack. A refused key must come back as an error
 * answer saying why and where to set the key, not as a closed connection.
 */

const ROOT = resolve(import.meta.dirname, '..', '..');
/** The repository address a release build is given (`npm run mcpb -- --repository`), in git's ssh form. */
const REPOSITORY = 'git@github.com:example-org/geo-measurement-api.git';
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const run = promisify(execFile);
const outDir = mkdtempSync(join(tmpdir(), 'geo-mcpb-'));
let api: LocalApi;
let packed: string;
let staged: string;
let manifest: McpbManifestAny;

beforeAll(async () => {
  api = await startTestApi();
  // As `npm run mcpb` runs it; in a child process, where esbuild's checks of its own realm hold.
  const { stdout } = await run(
    join(ROOT, 'node_modules', '.bin', 'tsx'),
    ['scripts/mcpb/build.ts', '--out-dir', outDir, '--repository', REPOSITORY],
    {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: '' },
    },
  );
  packed = join(outDir, `geo-measurement-${PACKAGE.version}.mcpb`);
  staged = join(outDir, 'claude-desktop');
  expect(stdout).toContain(`geo-measurement-${PACKAGE.version}.mcpb`);
  manifest = JSON.parse(readFileSync(join(staged, 'manifest.json'), 'utf8'));
}, 120_000);
afterAll(async () => {
  await api?.close();
  rmSync(outDir, { recursive: true, force: true });
});

/** The entries of a zip archive, read from its central directory (APPNOTE 4.3.12, 4.3.16). */
function unzip(file: string): Map<string, Buffer> {
  const zip = readFileSync(file);
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(end).toBeGreaterThanOrEqual(0);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const [nameLength, extraLength, commentLength] = [zip.readUInt16LE(at + 28), zip.readUInt16LE(at + 30), zip.readUInt16LE(at + 32)];
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const data = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(data, data + size);
    entries.set(name, method === 8 ? inflateRawSync(raw) : Buffer.from(raw));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The command, args and env Claude Desktop would start the extension with, given these settings. */
async function launch(userConfig: Record<string, string>) {
  return getMcpConfigForManifest({ manifest, extensionPath: staged, systemDirs: {}, userConfig, pathSeparator: '/' });
}

interface Session {
  client: Client;
  stderr: () => string;
}

/** Starts the bundle as `command args` with `env`, and connects the SDK's stdio client to it. */
async function connect(config: { command: string; args?: string[]; env?: Record<string, string> }): Promise<Session> {
  const transport = new StdioClientTransport({ command: config.command, args: config.args, env: config.env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const client = new Client({ name: 'claude-desktop-test', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close();
    throw Object.assign(error as Error, { stderr });
  }
  return { client, stderr: () => stderr };
}

type Launch = NonNullable<Awaited<ReturnType<typeof launch>>>;

/** Starts it with these settings, expecting the connection to fail: the error it ended with, and what the bridge logged. */
async function refusal(config: Launch | undefined): Promise<{ message: string; stderr: string }> {
  try {
    const session = await connect(config!);
    await session.client.close();
  } catch (error) {
    return { message: (error as Error).message, stderr: (error as { stderr: string }).stderr };
  }
  throw new Error('the connection succeeded');
}

const SETTINGS = "Set a valid key in the extension's settings (Claude Desktop: Settings → Extensions → GEO measurement API).";

describe('the packed extension', () => {
  test('the manifest asks for the key as a sensitive, required setting and starts the bundle with it in env', () => {
    expect(manifest.manifest_version).toBe('0.3');
    expect(manifest.user_config?.api_key).toMatchObject({ type: 'string', sensitive: true, required: true });
    expect(manifest.user_config?.endpoint).toMatchObject({ type: 'string', default: 'http://127.0.0.1:3000/api/v1/mcp' });
    expect(manifest.server).toEqual({
      type: 'node',
      entry_point: 'server/index.mjs',
      mcp_config: {
        command: 'node',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own substitution syntax
        args: ['${__dirname}/server/index.mjs'],
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own substitution syntax
        env: { GEO_API_KEY: '${user_config.api_key}', GEO_MCP_URL: '${user_config.endpoint}' },
      },
    });
    expect(manifest.tools?.map((t) => t.name)).toEqual(reads.map((r) => r.name));
  });

  test('what the install dialog and the extension list show: icon, license, source, author, version, Claude Desktop range', () => {
    expect(manifest).toMatchObject({
      icon: 'icon.png',
      license: 'Apache-2.0',
      version: PACKAGE.version,
      repository: { type: 'git', url: 'https://github.com/example-org/geo-measurement-api.git' },
      homepage: 'https://github.com/example-org/geo-measurement-api',
      support: 'https://github.com/example-org/geo-measurement-api/issues',
      author: { name: expect.stringMatching(/\S/), email: expect.stringMatching(/^[^@\s]+@[^@\s]+$/) },
    });
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
    // A lower bound only: a Claude Desktop range with an upper bound would refuse every later release.
    expect(manifest.compatibility?.claude_desktop).toMatch(/^>=\d+\.\d+\.\d+$/);
  });

  test('mcpb validate passes on the source manifest and on the packed one', async () => {
    for (const file of [join(ROOT, 'examples', 'claude-desktop', 'manifest.json'), join(staged, 'manifest.json')]) {
      const { stdout } = await run(join(ROOT, 'node_modules', '.bin', 'mcpb'), ['validate', file], { cwd: ROOT });
      expect(stdout).toContain('Manifest schema validation passes!');
    }
  });

  test('the .mcpb is a zip of the manifest, its icon and the one-file bundle, without node_modules', () => {
    const entries = unzip(packed);
    expect([...entries.keys()].sort()).toEqual(['icon.png', 'manifest.json', 'server/index.mjs']);
    const icon = entries.get('icon.png')!;
    expect(icon.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
    expect(icon.equals(readFileSync(join(ROOT, 'examples', 'claude-desktop', 'icon.png')))).toBe(true);
    expect(JSON.parse(entries.get('manifest.json')!.toString('utf8'))).toEqual(manifest);
    expect(entries.get('server/index.mjs')!.equals(readFileSync(join(staged, 'server', 'index.mjs')))).toBe(true);
  });

  test('without a key Claude Desktop does not start it: the key is a required setting', async () => {
    expect(hasRequiredConfigMissing({ manifest, userConfig: {} })).toBe(true);
    expect(await launch({})).toBeUndefined();
  });
});

describe('through the SDK stdio client, as Claude Desktop starts it', () => {
  test('a valid key: every tool, and list_analyses gives the REST body', async () => {
    const key = demo.keys.workspace;
    const config = await launch({ api_key: key, endpoint: `${api.baseUrl}/mcp` });
    expect(config?.args).toEqual([`${staged}/server/index.mjs`]);
    const session = await connect(config!);
    try {
      const { tools } = await session.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(reads.map((r) => r.name).sort());
      const result = await session.client.callTool({ name: 'list_analyses', arguments: {} });
      expect(result.isError).toBeFalsy();
      const rest = (await call(api, '/analyses?limit=7', key)).body;
      expect(result.structuredContent).toMatchObject({ items: rest.items, total: rest.total, next_cursor: rest.next_cursor });
    } finally {
      await session.client.close();
    }
    expect(session.stderr()).not.toContain(key);
  }, 60_000);

  test.each([
    ['an unknown', () => `geo_live_${'x'.repeat(40)}`, 401, 'unauthorized'],
    ['a revoked', () => demo.keys.revoked, 401, 'key_revoked'],
  ])('%s key: the connection ends with the API refusal and where to set the key', async (_label, key, status, code) => {
    const config = await launch({ api_key: key(), endpoint: `${api.baseUrl}/mcp` });
    const { message, stderr } = await refusal(config);
    expect(message).toContain(`The API refused the API key (${status} ${code}): `);
    expect(message).toContain(SETTINGS);
    expect(message).toMatch(/Request id: [0-9a-f-]{36}\./);
    expect(message).not.toMatch(/Connection closed/i);
    expect(stderr).toContain(`${status} ${code}`);
    expect(stderr).not.toContain(key());
  });

  test('a key whose plan has no API: 403 plan_required, and where to set another key', async () => {
    const config = await launch({ api_key: demo.keys.plan_without_api, endpoint: `${api.baseUrl}/mcp` });
    const { message, stderr } = await refusal(config);
    expect(message).toContain(
      "The API refused access with this API key (403 plan_required): The workspace's plan does not include API access.",
    );
    expect(message).toContain("Set a key that has access in the extension's settings");
    expect(stderr).not.toContain(demo.keys.plan_without_api);
  });

  test('no key set (a host that starts it anyway): an answer saying so and where to set it', async () => {
    // What a host passes when the setting has no value: the placeholder, unsubstituted.
    const config = (await launch({ api_key: 'placeholder', endpoint: `${api.baseUrl}/mcp` }))!;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own substitution syntax
    const { message } = await refusal({ ...config, env: { ...config.env, GEO_API_KEY: '${user_config.api_key}' } });
    expect(message).toContain('No API key is set for GEO measurement API');
    expect(message).toContain("Set it in the extension's settings (Claude Desktop: Settings → Extensions → GEO measurement API).");
  });

  test('a key pasted with a line break inside: refused before sending, without quoting the key', async () => {
    const key = `${demo.keys.workspace.slice(0, 20)}\n${demo.keys.workspace.slice(20)}`;
    const { message, stderr } = await refusal(await launch({ api_key: key, endpoint: `${api.baseUrl}/mcp` }));
    expect(message).toContain('The API key setting holds characters no key has');
    expect(message + stderr).not.toContain(demo.keys.workspace.slice(20));
  });

  test('an endpoint nobody listens on: the error names it', async () => {
    const port = await new Promise<number>((done) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => done(port));
      });
    });
    const endpoint = `http://127.0.0.1:${port}/api/v1/mcp`;
    const { message } = await refusal(await launch({ api_key: demo.keys.workspace, endpoint }));
    expect(message).toContain(`Could not reach the API at ${endpoint} (ECONNREFUSED`);
    expect(message).toContain("Check the MCP endpoint in the extension's settings");
  });

  test('an address of the API that is not /mcp: its 404, and to check the endpoint', async () => {
    const { message } = await refusal(await launch({ api_key: demo.keys.workspace, endpoint: `${api.baseUrl}/mcpx` }));
    expect(message).toContain(`The API at ${api.baseUrl}/mcpx answered 404 not_found: `);
    expect(message).toContain("Check the MCP endpoint in the extension's settings: it ends in /api/v1/mcp.");
  });

  test.each([
    ['a user and password (a proxy’s)', (_key: string) => 'u:Pr0xyPassw0rd@', 'Pr0xyPassw0rd'],
    ['the key itself', (key: string) => `${key}@`, demo.keys.workspace],
  ])('an endpoint with %s before the host: refused naming the setting, and printed nowhere', async (_label, userinfo, secret) => {
    const key = demo.keys.workspace;
    for (const scheme of ['https', 'http']) {
      const endpoint = `${scheme}://${userinfo(key)}${api.baseUrl.replace(/^https?:\/\//, '')}/mcp`;
      const { message, stderr } = await refusal(await launch({ api_key: key, endpoint }));
      expect(message).toContain('The MCP endpoint setting holds a user name or password before the host');
      expect(message).toContain("Set it in the extension's settings (Claude Desktop: Settings → Extensions → GEO measurement API).");
      expect(message + stderr).not.toContain(secret);
      expect(stderr).toContain('The MCP endpoint setting holds a user name or password');
    }
  });

  test('whatever else the bridge prints (a fetch error, a page an endpoint answers) loses every URL’s user and password, and the key', () => {
    const key = demo.keys.workspace;
    expect(
      withoutCredentials(`fetch https://u:Pr0xyPassw0rd@proxy.example/api/v1/mcp failed; page: http://${key}@127.0.0.1:3000/x`, key),
    ).toBe('fetch https://proxy.example/api/v1/mcp failed; page: http://127.0.0.1:3000/x');
    expect(withoutCredentials(`The API refused ${key}.`, key)).toBe('The API refused <API key>.');
  });

  test('an http endpoint on another machine is refused before the key is sent', async () => {
    const { message } = await refusal(await launch({ api_key: demo.keys.workspace, endpoint: 'http://api.example.com/api/v1/mcp' }));
    expect(message).toContain('must start with https://');
  });
});
