import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Lambda's synchronous response limit: a bigger answer never reaches the caller deployed. */
export const MAX_RESPONSE_BYTES = 6 * 1024 * 1024;
/** The memory of a deployed function (lib/config.ts, lambda.memoryMb): the server under the battery must fit it. */
export const MAX_PEAK_RSS_BYTES = 512 * 1024 * 1024;
/** Acceptance level of the property battery: the fewest cases its files must run together. */
export const MIN_CASES = 10_000;

export const FIGURES_DIR_ENV = 'RELIABILITY_FIGURES_DIR';

/** What one file of the property battery did, written for the global teardown to add up. */
export interface FileFigures {
  file: string;
  /** Property cases run, by class. */
  cases: Record<string, number>;
  /** HTTP responses received (a case may make several requests). */
  responses: number;
  fiveXX: number;
  maxResponseBytes: number;
  /** What the largest response answered (read or tool). */
  largest: string;
  startRssBytes: number;
  peakRssBytes: number;
  /** The API process ended on its own, or wrote at level ERROR (an unhandled fault). */
  crashes: number;
  errorLines: number;
  ms: number;
}

/** Counts cases and every response of a file: status, size. */
export class Meter {
  readonly cases: Record<string, number> = {};
  responses = 0;
  fiveXX = 0;
  maxResponseBytes = 0;
  largest = '';
  private readonly started = performance.now();

  count(cls: string): void {
    this.cases[cls] = (this.cases[cls] ?? 0) + 1;
  }

  /** Records one HTTP response; returns what is wrong with it at this level (5xx, over 6 MB). */
  observe(status: number, bytes: number, what: string): string[] {
    this.responses += 1;
    if (bytes > this.maxResponseBytes) {
      this.maxResponseBytes = bytes;
      this.largest = what;
    }
    const problems: string[] = [];
    if (status >= 500) {
      this.fiveXX += 1;
      problems.push(`5xx: ${status}`);
    }
    if (bytes > MAX_RESPONSE_BYTES) problems.push(`response of ${bytes} bytes, over the 6 MB Lambda limit`);
    return problems;
  }

  figures(file: string, server: { startRssBytes: number; peakRssBytes: number; crashed: boolean; errorLines: number }): FileFigures {
    return {
      file,
      cases: { ...this.cases },
      responses: this.responses,
      fiveXX: this.fiveXX,
      maxResponseBytes: this.maxResponseBytes,
      largest: this.largest,
      startRssBytes: server.startRssBytes,
      peakRssBytes: server.peakRssBytes,
      crashes: server.crashed ? 1 : 0,
      errorLines: server.errorLines,
      ms: Math.round(performance.now() - this.started),
    };
  }
}

export function recordFigures(figures: FileFigures): void {
  const dir = process.env[FIGURES_DIR_ENV];
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${figures.file}.json`), JSON.stringify(figures));
}

export function readFigures(dir: string): FileFigures[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as FileFigures);
  } catch {
    return [];
  }
}

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;

/**
 * The battery's totals, printed, and its acceptance: at least MIN_CASES cases when every property file
 * ran (a targeted run of one file is not held to the total), no 5xx, no crash, no response over 6 MB,
 * peak RSS of each API process within MAX_PEAK_RSS_BYTES. Returns the failures.
 */
export function summarise(all: FileFigures[], expectedFiles: readonly string[]): { report: string; failures: string[] } {
  const byClass: Record<string, number> = {};
  for (const f of all) for (const [k, n] of Object.entries(f.cases)) byClass[k] = (byClass[k] ?? 0) + n;
  const cases = Object.values(byClass).reduce((a, b) => a + b, 0);
  const responses = all.reduce((a, f) => a + f.responses, 0);
  const fiveXX = all.reduce((a, f) => a + f.fiveXX, 0);
  const crashes = all.reduce((a, f) => a + f.crashes, 0);
  const errorLines = all.reduce((a, f) => a + f.errorLines, 0);
  const maxBytes = Math.max(0, ...all.map((f) => f.maxResponseBytes));
  const largest = all.find((f) => f.maxResponseBytes === maxBytes)?.largest ?? '';
  const peak = Math.max(0, ...all.map((f) => f.peakRssBytes));
  const report = [
    `property battery: ${cases} cases (${Object.entries(byClass)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}), ${responses} responses`,
    `  5xx: ${fiveXX}; crashes: ${crashes}; ERROR lines of the API processes: ${errorLines}`,
    `  largest response: ${maxBytes} bytes (${mb(maxBytes)}; limit ${mb(MAX_RESPONSE_BYTES)}): ${largest}`,
    `  RSS of the API process, listening → peak: ${all.map((f) => `${f.file} ${mb(f.startRssBytes)} → ${mb(f.peakRssBytes)}`).join(', ')} (bound ${mb(MAX_PEAK_RSS_BYTES)})`,
    `  time: ${all.map((f) => `${f.file} ${(f.ms / 1000).toFixed(1)} s`).join(', ')}`,
  ].join('\n');
  const failures: string[] = [];
  // The total holds for the battery as configured: all property files, run counts not overridden.
  const complete =
    expectedFiles.every((name) => all.some((f) => f.file === name)) && !Object.keys(process.env).some((k) => k.startsWith('FC_RUNS_'));
  if (complete && cases < MIN_CASES) failures.push(`${cases} cases, fewer than ${MIN_CASES}`);
  if (fiveXX > 0) failures.push(`${fiveXX} responses 5xx`);
  if (crashes > 0) failures.push(`${crashes} API processes crashed`);
  if (errorLines > 0) failures.push(`${errorLines} ERROR lines (unhandled faults) from the API processes`);
  if (maxBytes > MAX_RESPONSE_BYTES) failures.push(`a response of ${maxBytes} bytes`);
  if (peak > MAX_PEAK_RSS_BYTES) failures.push(`peak RSS ${mb(peak)} over ${mb(MAX_PEAK_RSS_BYTES)}`);
  return { report, failures };
}
