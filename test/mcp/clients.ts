import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The real MCP clients the tests run, pinned (a plain install on Node 20 resolves an Inspector too old to
 * send --header): through `npx --yes name@version`, so they stay out of package.json (a large tree of React,
 * Vite and Ink for the Inspector alone) and are fetched once into the npm cache. The Inspector 2.12.0
 * declares Node >= 22.19; its CLI runs on Node 20.20.
 */
export const MCP_REMOTE = 'mcp-remote@0.15.1';
export const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `npx --yes <pkg> ...args` and collects its output; `stdin` lines are written one by one as the child reads. */
export function npx(
  pkg: string,
  args: string[],
  opts: { env?: Record<string, string>; stdin?: string[]; timeoutMs?: number; until?: (out: Run) => boolean } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['--yes', pkg, ...args], {
      env: { ...process.env, NODE_OPTIONS: '', npm_config_loglevel: 'error', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Run = { code: null, stdout: '', stderr: '' };
    const timer = setTimeout(() => child.kill('SIGTERM'), opts.timeoutMs ?? 120_000);
    const check = () => {
      if (opts.until?.(out)) child.kill('SIGTERM');
    };
    // Decoded by the streams, so a character split across two chunks stays whole.
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      out.stdout += d;
      check();
    });
    child.stderr.on('data', (d: string) => {
      out.stderr += d;
      check();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      out.code = code;
      resolve(out);
    });
    for (const line of opts.stdin ?? []) child.stdin.write(`${line}\n`);
    if (!opts.until) child.stdin.end();
  });
}

/** A private config directory, so mcp-remote neither reads nor leaves OAuth state in the user's home. */
export const freshConfigDir = (): string => mkdtempSync(join(tmpdir(), 'geo-mcp-remote-'));
