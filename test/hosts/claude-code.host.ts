import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalApi } from '../../local/stack.js';
import { hostBin, INSTALL } from './prefix.js';
import { freshHome, type HostHome, runHost } from './run-host.js';
import { describeHost } from './scenarios.js';
import { conversation, startAnthropicStandIn, type ToolResult, toolResults, userTurn } from './stand-ins/anthropic.js';
import { aimedAt, docsBlock, promptCommandFrom } from './support.js';

/**
 * Claude Code (the pinned @anthropic-ai/claude-code), configured as docs/hosts/claude-code.md says, its
 * model replaced by a stand-in on the loopback interface (ANTHROPIC_BASE_URL).
 */
const PAGE = 'docs/hosts/claude-code.md';
const BIN = hostBin('claude');

/** The documented configuration file, and the documented command's flags (the permission for the tools). */
const config = docsBlock(PAGE, 'Setup', 'json');
const server = Object.keys(JSON.parse(config).mcpServers)[0] as string;
const words = (block: string, prefix: string): string[] => {
  const line = block.split('\n').find((l) => l.startsWith(prefix));
  if (!line) throw new Error(`${PAGE}: no "${prefix}" command where the test looks for it`);
  return line.slice(prefix.length).trim().split(/\s+/);
};
const command = words(docsBlock(PAGE, 'Setup', 'sh'), 'claude ');
const at = command.indexOf('--mcp-config');
const configFile = command[at + 1];
if (at < 0 || !configFile) throw new Error(`${PAGE}: the documented command names no --mcp-config file`);
const flags = command.filter((_w, i) => i !== at && i !== at + 1);

/** The documented registration for every session (`claude mcp add-json <name> '<entry>' <flags>`), and the check. */
const register = /^claude mcp add-json (\S+) '([^']+)' (.+)$/m.exec(docsBlock(PAGE, 'Registered once, for every session', 'sh'));
if (!register) throw new Error(`${PAGE}: no claude mcp add-json command under "Registered once, for every session"`);
const check = words(docsBlock(PAGE, 'Verifying the connection', 'sh'), 'claude ');

/** The documented command that runs one of the server's prompts. */
const promptCommand = (name: string, args: Record<string, string>): string => promptCommandFrom(PAGE, `/mcp__${server}__${name} `, args);

function env(home: HostHome, key: string, modelUrl: string): Record<string, string> {
  return {
    GEO_API_KEY: key,
    ANTHROPIC_BASE_URL: modelUrl,
    // An API key, not a login: no OAuth, no browser, no account lookups.
    ANTHROPIC_API_KEY: 'sk-ant-stand-in',
    CLAUDE_CONFIG_DIR: join(home.home, '.claude'),
    // Off: auto-update, telemetry, error reporting, feedback and other calls that are not the model.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    // Anything that still tries to leave the machine meets a closed port instead of the internet.
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
  };
}

const text = (r: ToolResult): string =>
  typeof r.content === 'string'
    ? r.content
    : (r.content as Array<{ type: string; text?: string }>).map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('');

describeHost({
  title: 'Claude Code 2.1.332',
  bin: BIN,
  install: INSTALL,
  toolName: (tool) => `mcp__${server}__${tool}`,
  // MCP tools are deferred behind ToolSearch by default: the model sees their names, then loads their schemas.
  before: (tools) => [{ tool: 'ToolSearch', input: { query: `select:${tools.map((t) => `mcp__${server}__${t}`).join(',')}` } }],
  inlineLimit: 50_000,
  async session(api, key, steps, opts = {}) {
    const model = await startAnthropicStandIn(steps);
    const home = freshHome('claude-code');
    writeFileSync(join(home.work, configFile), aimedAt(config, api));
    try {
      const run = await runHost(
        BIN,
        ['-p', opts.input ?? 'Use the geo tools.', '--output-format', 'json', '--strict-mcp-config', '--mcp-config', configFile, ...flags],
        {
          home,
          timeoutMs: 120_000,
          env: env(home, key, model.url),
        },
      );
      return { run, model };
    } finally {
      home.remove();
    }
  },
  results: (model) => toolResults(model).map((r) => ({ name: r.name, text: text(r) })),
  conversation: (model) => conversation(model).map((r) => JSON.stringify(r.body)),
  async verify(api: LocalApi, key: string) {
    const home = freshHome('claude-code');
    // No model is asked: a closed port stands for it.
    const opts = { home, timeoutMs: 60_000, env: env(home, key, 'http://127.0.0.1:9') };
    try {
      const [, name = '', entry = '', rest = ''] = register;
      const added = await runHost(BIN, ['mcp', 'add-json', name, aimedAt(entry, api), ...rest.split(/\s+/)], opts);
      if (added.code !== 0) throw new Error(`claude mcp add-json failed:\n${added.stdout}\n${added.stderr}`);
      return await runHost(BIN, check, opts);
    } finally {
      home.remove();
    }
  },
  connected: new RegExp(`^${server}: \\S+ \\(HTTP\\) - ✔ Connected$`, 'm'),
  rejected: new RegExp(`^${server}: \\S+ \\(HTTP\\) - ✘ Failed to connect — .*\\(HTTP 401\\).*"code":"unauthorized"`, 'm'),
  rejectedNotice: new RegExp(`${server} \\(AUTH_HEADER_REJECTED\\).*HTTP 401`),
  // Each prompt is a command of its own; under -p the command is the question.
  prompts: { command: promptCommand, userTurn },
});
