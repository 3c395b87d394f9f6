import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The environment variable naming the jest run's directory of synthesized CDK templates, where
 * test/infra/support.ts keeps each context's templates so that a run synthesizes each context once.
 */
export const SYNTH_CACHE_ENV = 'GEO_SYNTH_CACHE';

/** Made by the global setup; the workers jest starts after it inherit the variable. */
export function openSynthCache(): void {
  process.env[SYNTH_CACHE_ENV] = mkdtempSync(join(tmpdir(), 'geo-synth-'));
}

/** Removed by the global teardown with what the run kept in it. */
export function closeSynthCache(): void {
  const dir = process.env[SYNTH_CACHE_ENV];
  if (dir) rmSync(dir, { recursive: true, force: true });
}
