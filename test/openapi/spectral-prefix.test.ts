import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { expectIgnored, expectPinnedExactly } from '../support/pinned-prefix.js';

/**
 * Spectral and OWASP's ruleset stay out of the root install: only `npm run lint:openapi` uses them (CI's
 * document lint), so they are pinned in a prefix of their own (scripts/openapi/spectral, its package.json
 * and lockfile), which that command installs first, again whenever it no longer matches its lockfile
 * (scripts/pinned-prefix.ts, whose staleness rules test/hosts/prefix.test.ts exercises).
 */
const ROOT = resolve(import.meta.dirname, '..', '..');
const PREFIX = join(ROOT, 'scripts', 'openapi', 'spectral');
const TOOLS = ['@stoplight/spectral-cli', '@stoplight/spectral-owasp-ruleset'];
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe('Spectral is pinned apart from the root install', () => {
  test('the root package.json and its lockfile hold no Spectral package', () => {
    const root = json(join(ROOT, 'package.json'));
    const declared = { ...root.dependencies, ...root.devDependencies, ...root.optionalDependencies };
    expect(Object.keys(declared).filter((name) => name.startsWith('@stoplight/'))).toEqual([]);
    const locked = Object.keys(json(join(ROOT, 'package-lock.json')).packages);
    expect(locked.filter((path) => path.includes('node_modules/@stoplight/spectral'))).toEqual([]);
  });

  test('the prefix pins each at one exact version, and its lockfile holds those versions', () => {
    expectPinnedExactly(PREFIX, TOOLS);
  });

  test('npm run lint:openapi runs Redocly, then Spectral through the script that installs the prefix', () => {
    const script: string = json(join(ROOT, 'package.json')).scripts['lint:openapi'];
    expect(script.split('&&').map((s) => s.trim())).toEqual(['REDOCLY_TELEMETRY=off redocly lint', 'tsx scripts/openapi/spectral.ts']);
  });

  test('git ignores what the prefix installs', () => {
    expectIgnored(ROOT, join(PREFIX, 'node_modules', '@stoplight', 'spectral-cli', 'package.json'));
  });
});
