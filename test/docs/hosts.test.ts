import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { visiblePrefix } from '#shared/keys.js';
import { reads } from '#shared/reads/registry.js';
import type { LocalApi } from '../../local/stack.js';
import { manifest, startTestApi } from '../support/api.js';

/**
 * The host pages of docs/hosts as a reader copies them. Every JSON block is valid JSON,
 * names the MCP endpoint, and takes the key from a variable or an input: no page writes one out. The
 * configurations of the hosts that cannot run here but reach the endpoint themselves (Cursor, VS Code,
 * Windsurf) are read from their pages and driven against a local API with the MCP SDK's client, both
 * protocol eras, with exactly the URL and header they write, the variable replaced by a key: the header
 * form each page documents is one the API takes. The index lists every page, and every link leads somewhere.
 */

const ROOT = resolve(import.meta.dirname, '..', '..');
const HOSTS = 'docs/hosts';
/** The pages this test holds to the rules on JSON blocks; the pages of hosts run here have their own tests. */
const PAGES = ['cursor.md', 'vs-code.md', 'windsurf.md', 'openai-responses.md', 'anthropic-mcp-connector.md', 'chatgpt-and-claude-ai.md'];
/** The endpoint as the pages write it: the deployment's host is the reader's to fill in. */
const DOCUMENTED_BASE = 'https://<your-api>/api/v1';
/** A reference the host (or the reader's code) replaces with a value: ${env:NAME}, ${input:id}, ${NAME}. */
const VARIABLE = /\$\{(?:env:|input:)?[A-Za-z_][\w.-]*\}/g;
/** A secret written out: the prefix every key has, followed by what a key is made of. */
const WRITTEN_KEY = /geo_live_[0-9A-Za-z]/;

const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

interface Block {
  page: string;
  lang: string;
  text: string;
}

/** Every fenced block of a page, indented or not, with its language. */
function blocks(page: string): Block[] {
  return [...read(`${HOSTS}/${page}`).matchAll(/^[ \t]*```(\w*)[^\n]*\n([\s\S]*?)^[ \t]*```[ \t]*$/gm)].map((m) => ({
    page,
    lang: m[1] ?? '',
    text: m[2] ?? '',
  }));
}

/** Every value under a key named like an authorization header or token, anywhere in a parsed block. */
function credentials(value: unknown, out: Array<{ key: string; value: unknown }> = []): Array<{ key: string; value: unknown }> {
  if (Array.isArray(value)) for (const v of value) credentials(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (/^authorization(_token)?$/i.test(k)) out.push({ key: k, value: v });
      credentials(v, out);
    }
  }
  return out;
}

describe('the JSON blocks of the host pages', () => {
  const json = PAGES.flatMap(blocks).filter((b) => b.lang === 'json');

  test('every page but the connectors that cannot connect has a JSON block to copy', () => {
    const withJson = new Set(json.map((b) => b.page));
    expect(PAGES.filter((p) => !withJson.has(p))).toEqual(['chatgpt-and-claude-ai.md']);
  });

  test('each is valid JSON, names the /api/v1/mcp endpoint, and takes the key from a variable or an input', () => {
    for (const b of json) {
      const where = `${b.page}: ${b.text.slice(0, 60)}`;
      let parsed: unknown;
      expect(() => {
        parsed = JSON.parse(b.text);
      }).not.toThrow();
      expect({ where, endpoint: b.text.includes(`${DOCUMENTED_BASE}/mcp`) }).toEqual({ where, endpoint: true });
      const found = credentials(parsed);
      expect({ where, credentials: found.length > 0 }).toEqual({ where, credentials: true });
      for (const c of found) {
        const value = String(c.value);
        expect({ where, key: c.key, fromVariable: (value.match(VARIABLE) ?? []).length === 1 }).toEqual({
          where,
          key: c.key,
          fromVariable: true,
        });
        // A header carries the scheme the contract names; a token field carries the token alone.
        expect({ where, value: value.replace(VARIABLE, '<key>') }).toEqual({
          where,
          value: c.key === 'authorization_token' ? '<key>' : 'Bearer <key>',
        });
      }
    }
  });

  test('no block, and no line of these pages, writes out a key', () => {
    for (const page of [...PAGES, 'README.md']) {
      const lines = read(`${HOSTS}/${page}`)
        .split('\n')
        .filter((line) => WRITTEN_KEY.test(line));
      expect({ page, lines }).toEqual({ page, lines: [] });
    }
  });

  test('VS Code: the input the header refers to is declared, as a password prompt', () => {
    const config = JSON.parse(json.find((b) => b.page === 'vs-code.md')!.text) as {
      inputs: Array<{ type: string; id: string; password?: boolean }>;
      servers: Record<string, { headers: Record<string, string> }>;
    };
    const referred = Object.values(config.servers).flatMap((s) =>
      [
        ...Object.values(s.headers)
          .join(' ')
          .matchAll(/\$\{input:([^}]+)\}/g),
      ].map((m) => m[1]),
    );
    expect(referred.length).toBeGreaterThan(0);
    for (const id of referred)
      expect(config.inputs.find((i) => i.id === id)).toEqual({ type: 'promptString', id, description: expect.any(String), password: true });
  });
});

/** A host's documented server entry: its address and headers, as the page writes them. */
interface Entry {
  url: string;
  headers: Record<string, string>;
}

/** Where each host keeps the address: Cursor's `url`, VS Code's `servers` with `type: http`, Windsurf's `serverUrl`. */
const ENTRIES: Record<string, (config: any) => Entry> = {
  'cursor.md': (c) => ({ url: c.mcpServers.geo.url, headers: c.mcpServers.geo.headers }),
  'vs-code.md': (c) => {
    expect(c.servers.geo.type).toBe('http');
    return { url: c.servers.geo.url, headers: c.servers.geo.headers };
  },
  'windsurf.md': (c) => ({ url: c.mcpServers.geo.serverUrl, headers: c.mcpServers.geo.headers }),
};

const entryOf = (page: string): Entry => {
  const block = blocks(page).find((b) => b.lang === 'json');
  if (!block) throw new Error(`${page}: no JSON block`);
  return ENTRIES[page]!(JSON.parse(block.text));
};

/** The entry as the host sends it: the reader's host replaced by the local API, every variable by `key`. */
function filledIn(entry: Entry, api: LocalApi, key: string): Entry {
  return {
    url: entry.url.split(DOCUMENTED_BASE).join(api.baseUrl),
    headers: Object.fromEntries(Object.entries(entry.headers).map(([name, value]) => [name, value.replace(VARIABLE, key)])),
  };
}

interface Session {
  tools: string[];
  me: { isError?: boolean; structuredContent?: unknown };
  close: () => Promise<void>;
}

/** The 2025 era (an initialize handshake), as most hosts speak it today: the SDK's v1 client. */
async function sessionV1({ url, headers }: Entry): Promise<Session> {
  const client = new ClientV1({ name: 'hosts-doc-test', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(url), { requestInit: { headers } }));
  const tools = (await client.listTools()).tools.map((t) => t.name);
  const me = await client.callTool({ name: 'get_me', arguments: {} });
  return { tools, me: me as Session['me'], close: () => client.close() };
}

/** The 2026 era, as the SDK's v2 client speaks it. */
async function sessionV2({ url, headers }: Entry): Promise<Session> {
  const client = new ClientV2({ name: 'hosts-doc-test', version: '1.0.0' });
  await client.connect(new TransportV2(new URL(url), { requestInit: { headers } }));
  const tools = (await client.listTools()).tools.map((t) => t.name);
  const me = await client.callTool({ name: 'get_me', arguments: {} });
  return { tools, me: me as Session['me'], close: () => client.close() };
}

describe('Cursor, VS Code and Windsurf: the documented URL and header, against a local API', () => {
  let api: LocalApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  describe.each(Object.keys(ENTRIES))('%s', (page) => {
    test('the configuration names the endpoint, and the header is Authorization: Bearer with the key', () => {
      const sent = filledIn(entryOf(page), api, manifest.keys.workspace);
      expect(sent.url).toBe(`${api.baseUrl}/mcp`);
      expect(sent.headers).toEqual({ Authorization: `Bearer ${manifest.keys.workspace}` });
    });

    test.each([
      ['2025 era (SDK v1 client)', sessionV1],
      ['2026 era (SDK v2 client)', sessionV2],
    ])('%s: one tool per read, and get_me answers for the key the header carries', async (_era, open) => {
      const session = await open(filledIn(entryOf(page), api, manifest.keys.workspace));
      try {
        expect(session.tools.sort()).toEqual(reads.map((r) => r.name).sort());
        // The whole result on a failure, so a refusal shows its code and text.
        expect(session.me.isError ? session.me : undefined).toBeUndefined();
        expect((session.me.structuredContent as { key: { prefix: string } }).key.prefix).toBe(visiblePrefix(manifest.keys.workspace));
      } finally {
        await session.close();
      }
    });

    test('a variable the host did not fill in (left as written) is refused with 401', async () => {
      const entry = entryOf(page);
      const unfilled = { url: filledIn(entry, api, '').url, headers: entry.headers };
      // What the host meets: HTTP 401 with the API's error body.
      await expect(sessionV1(unfilled)).rejects.toMatchObject({ code: 401, message: expect.stringContaining('"code":"unauthorized"') });
    });
  });
});

describe('the index', () => {
  const pages = readdirSync(join(ROOT, HOSTS)).filter((name) => name.endsWith('.md'));

  test('lists every host page', () => {
    const linked = new Set([...read(`${HOSTS}/README.md`).matchAll(/\]\(([^)#\s]+\.md)\)/g)].map((m) => m[1]));
    expect(pages.filter((p) => p !== 'README.md' && !linked.has(p))).toEqual([]);
    for (const p of PAGES) expect(pages).toContain(p);
  });
});
