import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@jest/globals';

/** What a tool pinned apart from the root install must hold (scripts/pinned-prefix.ts). */

const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/** The prefix declares exactly these packages, each at one exact version, and its lockfile holds those versions. */
export function expectPinnedExactly(prefix: string, names: readonly string[]): void {
  const pinned = json(join(prefix, 'package.json'));
  const lock = json(join(prefix, 'package-lock.json'));
  expect(Object.keys(pinned.devDependencies).sort()).toEqual([...names].sort());
  for (const name of names) {
    expect(pinned.devDependencies[name]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(lock.packages[`node_modules/${name}`].version).toBe(pinned.devDependencies[name]);
  }
  expect(lock.packages[''].devDependencies).toEqual(pinned.devDependencies);
}

/** Git ignores this file of what a prefix installs. */
export function expectIgnored(root: string, file: string): void {
  expect(execFileSync('git', ['check-ignore', '--no-index', file], { cwd: root, encoding: 'utf8' }).trim()).not.toBe('');
}
