import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface HostRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** true when the hard timeout ended it. */
  timedOut: boolean;
}

/**
 * A private home for one host run: config, caches, sessions and trust files land here, never in the
 * user's home, and each run starts as a fresh install would. `work` is the directory the host runs in.
 */
export interface HostHome {
  home: string;
  work: string;
  remove(): void;
}

export function freshHome(prefix: string): HostHome {
  const home = mkdtempSync(join(tmpdir(), `geo-host-${prefix}-`));
  const work = join(home, 'work');
  mkdirSync(work);
  return { home, work, remove: () => rmSync(home, { recursive: true, force: true }) };
}

/** The variables of this process a host may see: the path and locale, none of the user's keys or config. */
function baseEnv(home: string): Record<string, string> {
  const keep = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'SystemRoot'];
  const env: Record<string, string> = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k] as string;
  return {
    ...env,
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    TMPDIR: home,
    CI: '1',
    NO_COLOR: '1',
    TERM: 'dumb',
  };
}

/**
 * Runs a host non-interactively in its own process group, stdin closed, with a hard timeout; at the end
 * the whole group is killed, so no MCP bridge or helper it started outlives the test.
 */
export function runHost(
  command: string,
  args: string[],
  opts: { home: HostHome; env: Record<string, string>; timeoutMs: number },
): Promise<HostRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: opts.home.work,
      env: { ...baseEnv(opts.home.home), ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const out: HostRun = { code: null, signal: null, stdout: '', stderr: '', timedOut: false };
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // The group is already gone.
      }
    };
    const timer = setTimeout(() => {
      out.timedOut = true;
      killGroup('SIGKILL');
    }, opts.timeoutMs);
    // Decoded by the streams, so a character split across two chunks stays whole.
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      out.stdout += d;
    });
    child.stderr.on('data', (d: string) => {
      out.stderr += d;
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      killGroup('SIGKILL');
      out.code = code;
      out.signal = signal;
      resolve(out);
    });
  });
}
