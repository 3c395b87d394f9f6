import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalApi } from '../../local/stack.js';
import { hostBin, INSTALL } from './prefix.js';
import { freshHome, type HostHome, runHost } from './run-host.js';
import { describeHost } from './scenarios.js';
import type { ToolResult } from './stand-ins/anthropic.js';
import { conversation, offeredTools, startOpenAiStandIn, toolResults } from './stand-ins/openai.js';
import { aimedAt, docsBlock } from './support.js';

/**
 * Codex CLI (the pinned @openai/codex), configured as docs/hosts/codex.md says, its model replaced by a
 * stand-in for the OpenAI Responses API on the loopback interface: a model provider of config.toml
 * whose base_url is the stand-in, as a user of a custom or local model sets one up.
 */
const PAGE = 'docs/hosts/codex.md';
const BIN = hostBin('codex');

/** The documented config.toml entry, the documented setting for larger results, and the documented check. */
const documented = docsBlock(PAGE, 'Setup', 'toml');
const server = /^\[mcp_servers\.([\w-]+)\]$/m.exec(documented)?.[1];
if (!server) throw new Error(`${PAGE}: no [mcp_servers.<name>] table under "Setup"`);
const roomier = docsBlock(PAGE, 'Results and their size', 'toml');
const checkLine = docsBlock(PAGE, 'Verifying the configuration', 'sh')
  .split('\n')
  .find((l) => l.startsWith('codex '));
if (!checkLine) throw new Error(`${PAGE}: no codex command under "Verifying the configuration"`);
const check = checkLine.split(/\s+/).slice(1);

/**
 * A fresh CODEX_HOME whose config.toml holds the model provider (the stand-in), the documented setting
 * when `roomy`, and the documented entry aimed at `api`. TOML wants the top-level keys before any table.
 */
function configure(api: LocalApi, modelUrl: string, roomy = false): HostHome {
  const home = freshHome('codex');
  mkdirSync(join(home.home, '.codex'));
  const config = [
    'model = "stand-in"',
    'model_provider = "stand-in"',
    // Off: the update check and usage analytics.
    'check_for_update_on_startup = false',
    ...(roomy ? [roomier.trim()] : []),
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[model_providers.stand-in]',
    'name = "Stand-in"',
    `base_url = "${modelUrl}/v1"`,
    'wire_api = "responses"',
    'env_key = "STAND_IN_API_KEY"',
    '',
    aimedAt(documented, api),
  ].join('\n');
  writeFileSync(join(home.home, '.codex', 'config.toml'), config);
  return home;
}

function env(home: HostHome, key: string): Record<string, string> {
  return {
    GEO_API_KEY: key,
    CODEX_HOME: join(home.home, '.codex'),
    STAND_IN_API_KEY: 'stand-in',
    // Anything that still tries to leave the machine meets a closed port instead of the internet.
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
  };
}

/**
 * What Codex puts before every tool output it passes on (`Wall time: <s> seconds`, `Output:`): taken off,
 * so that the API's own first line is the first line compared. Codex sends a result as one string, or,
 * for an error result, as a list of text items, the first of which is that header.
 */
const HOST_HEADER = /^Wall time: [\d.]+ seconds\nOutput:\n?/;

function text(r: ToolResult): string {
  if (typeof r.content === 'string') return r.content.replace(HOST_HEADER, '');
  if (Array.isArray(r.content)) {
    const parts = (r.content as Array<{ text?: string }>).map((c) => c.text ?? '');
    return parts.join('\n').replace(HOST_HEADER, '');
  }
  return JSON.stringify(r.content);
}

describeHost({
  title: 'Codex CLI 0.171.0',
  bin: BIN,
  install: INSTALL,
  // Codex offers a server's tools to the model as one namespace, mcp__<server>, of functions named as the tools.
  toolName: (tool) => `mcp__${server}.${tool}`,
  before: () => [],
  offered: (model) => offeredTools(model),
  // With a model it has no metadata for (a custom provider's), Codex keeps about 10,000 bytes of a tool output.
  inlineLimit: 10_000,
  cut: { marker: /…\d+ tokens truncated…/, roomy: true },
  async session(api, key, steps, opts = {}) {
    const model = await startOpenAiStandIn(steps);
    const home = configure(api, model.url, opts.roomy);
    try {
      const run = await runHost(BIN, ['exec', '--skip-git-repo-check', '--json', opts.input ?? 'Use the geo tools.'], {
        home,
        timeoutMs: 120_000,
        env: env(home, key),
      });
      return { run, model };
    } finally {
      home.remove();
    }
  },
  results: (model) => toolResults(model).map((r) => ({ name: r.name, text: text(r) })),
  conversation: (model) => conversation(model).map((r) => JSON.stringify(r.body)),
  async verify(api, key) {
    // No model is asked: a closed port stands for it.
    const home = configure(api, 'http://127.0.0.1:9');
    try {
      return await runHost(BIN, check, { home, timeoutMs: 60_000, env: env(home, key) });
    } finally {
      home.remove();
    }
  },
  // `codex mcp list` shows the configuration (the variable the key is read from), not a connection.
  connected: new RegExp(`^${server}\\s+\\S+/api/v1/mcp\\s+GEO_API_KEY\\s+enabled\\s+Bearer token\\s*$`, 'm'),
  // Codex's model lists and reads a server's resources with tools of Codex's own; each answers in JSON.
  // It keeps about 10,000 bytes of a resource, tool_output_token_limit or not.
  resources: {
    cutOver: 10_000,
    steps: (uri) => [
      { tool: 'list_mcp_resources', input: { server } },
      { tool: 'read_mcp_resource', input: { server, uri } },
    ],
    listed: (model) => toolResults(model).find((r) => r.name === 'list_mcp_resources')?.content as string,
    read: (model) => {
      const output = toolResults(model).find((r) => r.name === 'read_mcp_resource')?.content as string;
      return (JSON.parse(output) as { contents: Array<{ text?: string }> }).contents.map((c) => c.text ?? '').join('');
    },
  },
  // The API's 401 reason (its WWW-Authenticate header), in what Codex prints when the server cannot start.
  rejectedOutput: /error=\\?"invalid_token\\?", error_description=\\?"unauthorized: /,
});
