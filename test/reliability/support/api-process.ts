import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { SDK_NODE_WARNING_OFF } from '../../../local/node-notice.js';
import { freshTableName, LOCAL_CURSOR_SECRET } from '../../../local/stack.js';
import { createBudgetTable } from '../../../local/stores.js';

/** Where the global setup writes the bundled API server (test/reliability/support/api-server.ts). */
export const API_BUNDLE_ENV = 'RELIABILITY_API_BUNDLE';

export interface ApiProcess {
  url: string;
  baseUrl: string;
  pid: number;
  /** The process ended on its own (crash, uncaught exception): its exit code or signal, else null. */
  exited(): string | null;
  /** Resident set size once listening, before any request (Linux VmRSS), in bytes. */
  startRssBytes: number;
  /** Peak resident set size so far (Linux VmHWM), in bytes. */
  peakRssBytes(): number;
  /** Lines the process wrote at level ERROR (unhandled faults) and anything on stderr. */
  errorOutput(): string[];
  close(): Promise<void>;
}

function procStatusBytes(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1];
  return kb ? Number(kb) * 1024 : 0;
}

/**
 * Starts the bundled API in its own Node process on the battery's stores (the same environment names
 * as startTestApi), with its own budget table. `overrides` are environment values (shared/config/service.ts).
 */
export async function startApiProcess(overrides: Record<string, string> = {}): Promise<ApiProcess> {
  const bundle = process.env[API_BUNDLE_ENV];
  if (!bundle) throw new Error(`${API_BUNDLE_ENV} is not set: run through npm run test:reliability (its global setup bundles the server)`);
  const table = overrides.BUDGET_TABLE ?? freshTableName();
  await createBudgetTable(process.env.TEST_DYNAMODB_ENDPOINT as string, table);
  const { NODE_OPTIONS: _jestFlags, ...env } = process.env;
  const child: ChildProcess = spawn(process.execPath, ['--enable-source-maps', bundle], {
    env: {
      ...env,
      CURSOR_SECRET: LOCAL_CURSOR_SECRET,
      DATABASE_URL: process.env.TEST_READER_URL as string,
      DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT as string,
      DB_POOL_MAX: '8',
      LOG_LEVEL: 'ERROR',
      POWERTOOLS_METRICS_DISABLED: 'true',
      ...SDK_NODE_WARNING_OFF,
      ...overrides,
      BUDGET_TABLE: table,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const errors: string[] = [];
  let exit: string | null = null;
  let stdoutTail = '';
  child.on('exit', (code, signal) => {
    exit = signal ?? String(code);
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    if (errors.length < 200) errors.push(chunk.slice(0, 4000));
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the API process did not start in 60 s: ${errors.join('')}`)), 60_000);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdoutTail += chunk;
      const lines = stdoutTail.split('\n');
      stdoutTail = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('{"listening":')) {
          clearTimeout(timer);
          resolve(JSON.parse(line).listening as string);
        } else if (line.includes('"level":"ERROR"') && errors.length < 200) errors.push(line.slice(0, 4000));
      }
    });
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`the API process ended before listening (${exit}): ${errors.join('')}`));
    });
  });
  const pid = child.pid as number;
  return {
    url,
    baseUrl: `${url}/api/v1`,
    pid,
    startRssBytes: procStatusBytes(pid, 'VmRSS'),
    exited: () => exit,
    peakRssBytes: () => (exit === null ? procStatusBytes(pid, 'VmHWM') : 0),
    errorOutput: () => [...errors],
    close: () =>
      new Promise<void>((resolve) => {
        if (exit !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
