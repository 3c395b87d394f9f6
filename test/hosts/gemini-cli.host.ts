import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalApi } from '../../local/stack.js';
import { hostBin, INSTALL } from './prefix.js';
import { freshHome, type HostHome, runHost } from './run-host.js';
import { describeHost } from './scenarios.js';
import type { ToolResult } from './stand-ins/anthropic.js';
import { conversation, startGeminiStandIn, toolResults, userTurn } from './stand-ins/gemini.js';
import { aimedAt, docsBlock, promptCommandFrom } from './support.js';

/**
 * Gemini CLI (the pinned @google/gemini-cli), configured as docs/hosts/gemini-cli.md says, its model
 * replaced by a stand-in on the loopback interface (GOOGLE_GEMINI_BASE_URL).
 */
const PAGE = 'docs/hosts/gemini-cli.md';
const BIN = hostBin('gemini');

/** The documented settings.json entry, and the documented check of the connection. */
const documented = docsBlock(PAGE, 'Setup', 'json');
const server = Object.keys(JSON.parse(documented).mcpServers)[0] as string;
const checkLine = docsBlock(PAGE, 'Verifying the connection', 'sh')
  .split('\n')
  .find((l) => l.startsWith('gemini '));
if (!checkLine) throw new Error(`${PAGE}: no gemini command under "Verifying the connection"`);
const check = checkLine.split(/\s+/).slice(1);

/** The documented command that runs one of the server's prompts. */
const promptCommand = (name: string, args: Record<string, string>): string => promptCommandFrom(PAGE, `/${name} `, args);

/** A fresh home whose settings.json holds the documented entry, aimed at `api`. */
function configure(api: LocalApi): HostHome {
  const home = freshHome('gemini-cli');
  mkdirSync(join(home.home, '.gemini'));
  const settings = {
    // The stand-in takes the place of the Gemini API: an API key, no Google login.
    security: { auth: { selectedType: 'gemini-api-key' } },
    // Off: usage statistics, telemetry, the update check and its notice.
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    ...JSON.parse(aimedAt(documented, api)),
  };
  writeFileSync(join(home.home, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2));
  return home;
}

function env(key: string, modelUrl: string): Record<string, string> {
  return {
    GEO_API_KEY: key,
    GEMINI_API_KEY: 'stand-in',
    GOOGLE_GEMINI_BASE_URL: modelUrl,
    // Headless runs refuse an untrusted folder; a user trusts theirs once, interactively.
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    // Anything that still tries to leave the machine meets a closed port instead of the internet.
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
  };
}

/**
 * What the CLI wraps around every tool output it passes on (its own marking of tool output as data):
 * taken off, so that the API's own first line is the first line compared.
 */
const HOST_WRAPPER = /^<untrusted_context>\n([\s\S]*)\n<\/untrusted_context>$/;
/**
 * How the CLI passes on a result with isError: not the text, but a sentence around the whole MCP result
 * as JSON (`MCP tool '<name>' reported tool error for function call: {...} with response: [...]`). The
 * model reads the text block inside that JSON, escaped; taken out here to be compared.
 */
const HOST_ERROR = /^MCP tool '[^']*' reported tool error for function call: .*? with response: (\[[\s\S]*\])$/;

function text(r: ToolResult): string {
  const response = r.content as { output?: unknown; error?: unknown };
  if (typeof response.output === 'string') return HOST_WRAPPER.exec(response.output)?.[1] ?? response.output;
  if (typeof response.error === 'string') {
    const wrapped = HOST_ERROR.exec(response.error)?.[1];
    if (!wrapped) return response.error;
    const [first] = JSON.parse(wrapped) as Array<{ functionResponse: { response: { content: Array<{ type: string; text?: string }> } } }>;
    return (first?.functionResponse.response.content ?? []).map((c) => (c.type === 'text' ? (c.text ?? '') : '')).join('');
  }
  return JSON.stringify(response);
}

describeHost({
  title: 'Gemini CLI 0.61.0',
  bin: BIN,
  install: INSTALL,
  toolName: (tool) => `mcp_${server}_${tool}`,
  before: () => [],
  inlineLimit: 40_000,
  async session(api, key, steps, opts = {}) {
    const model = await startGeminiStandIn(steps);
    const home = configure(api);
    try {
      const run = await runHost(process.execPath, [BIN, '-p', opts.input ?? 'Use the geo tools.', '--output-format', 'json'], {
        home,
        timeoutMs: 120_000,
        env: env(key, model.url),
      });
      return { run, model };
    } finally {
      home.remove();
    }
  },
  results: (model) => toolResults(model).map((r) => ({ name: r.name, text: text(r) })),
  conversation: (model) => conversation(model).map((r) => JSON.stringify(r.body)),
  async verify(api, key) {
    const home = configure(api);
    try {
      // No model is asked: a closed port stands for it.
      return await runHost(process.execPath, [BIN, ...check], { home, timeoutMs: 60_000, env: env(key, 'http://127.0.0.1:9') });
    } finally {
      home.remove();
    }
  },
  connected: new RegExp(`^✓ ${server}: \\S+ \\(http\\) - Connected$`, 'm'),
  rejected: new RegExp(`^✗ ${server}: \\S+ \\(http\\) - Disconnected$`, 'm'),
  // Each prompt is a command of its own, named as the prompt; under -p the command is the question.
  prompts: { command: promptCommand, userTurn },
});
