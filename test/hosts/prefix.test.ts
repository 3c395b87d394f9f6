import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { expectIgnored, expectPinnedExactly } from '../support/pinned-prefix.js';
import { PREFIX, staleness } from './prefix.js';

/**
 * The assistant hosts stay out of the root install: `npm ci` at the root installs none of them, the
 * hosts suite pins them in a prefix of its own (test/hosts/pinned, its package.json and lockfile), and
 * `npm run test:hosts` installs that prefix first, again whenever it no longer matches its lockfile.
 */
const ROOT = resolve(import.meta.dirname, '..', '..');
const HOSTS = ['@anthropic-ai/claude-code', '@google/gemini-cli', '@openai/codex'];
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe('the hosts are pinned apart from the root install', () => {
  test('the root package.json and its lockfile hold none of the host CLIs', () => {
    const root = json(join(ROOT, 'package.json'));
    const declared = { ...root.dependencies, ...root.devDependencies, ...root.optionalDependencies };
    expect(HOSTS.filter((name) => name in declared)).toEqual([]);
    const locked = Object.keys(json(join(ROOT, 'package-lock.json')).packages);
    expect(
      locked.filter((path) => HOSTS.some((name) => path === `node_modules/${name}` || path.endsWith(`/node_modules/${name}`))),
    ).toEqual([]);
  });

  test('the prefix pins each host at one exact version, and its lockfile holds those versions', () => {
    expectPinnedExactly(PREFIX, HOSTS);
  });

  test('npm run test:hosts installs the prefix before the suite runs', () => {
    const script: string = json(join(ROOT, 'package.json')).scripts['test:hosts'];
    const [first, ...rest] = script.split('&&').map((s) => s.trim());
    expect(first).toBe('tsx test/hosts/prefix.ts');
    expect(rest.join(' && ')).toContain('jest -c jest.hosts.config.js');
  });

  test('git ignores what the prefix installs', () => {
    expectIgnored(ROOT, join(PREFIX, 'node_modules', '@openai', 'codex', 'package.json'));
  });
});

describe('when the prefix is installed again', () => {
  const dir = mkdtempSync(join(tmpdir(), 'geo-hosts-prefix-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A prefix with the real lockfile and an installed record (node_modules/.package-lock.json) made from it. */
  function prefixWith(change: (installed: Record<string, any>) => void): string {
    const prefix = mkdtempSync(join(dir, 'p-'));
    cpSync(join(PREFIX, 'package.json'), join(prefix, 'package.json'));
    cpSync(join(PREFIX, 'package-lock.json'), join(prefix, 'package-lock.json'));
    const lock = json(join(PREFIX, 'package-lock.json'));
    const installed: Record<string, any> = {};
    for (const [path, entry] of Object.entries<any>(lock.packages)) {
      if (path === '' || entry.optional) continue;
      installed[path] = { ...entry };
      mkdirSync(join(prefix, path), { recursive: true });
    }
    change(installed);
    writeFileSync(join(prefix, 'node_modules', '.package-lock.json'), JSON.stringify({ packages: installed }));
    return prefix;
  }

  test('absent: installed', () => {
    const prefix = mkdtempSync(join(dir, 'empty-'));
    cpSync(join(PREFIX, 'package-lock.json'), join(prefix, 'package-lock.json'));
    expect(staleness(prefix)).toBe('not installed');
  });

  test('as the lockfile says: left alone', () => {
    expect(staleness(prefixWith(() => {}))).toBeUndefined();
  });

  test('another version of a host than the lockfile’s (the lockfile moved on): installed again', () => {
    const prefix = prefixWith((installed) => {
      installed['node_modules/@openai/codex'].version = '0.0.1';
    });
    expect(staleness(prefix)).toMatch(/^node_modules\/@openai\/codex is 0\.0\.1, locked \d/);
  });

  test('a host the lockfile pins that is not installed: installed again', () => {
    const prefix = prefixWith((installed) => {
      delete installed['node_modules/@google/gemini-cli'];
    });
    expect(staleness(prefix)).toBe('node_modules/@google/gemini-cli is missing');
  });

  test('a package the lockfile no longer has: installed again', () => {
    const prefix = prefixWith((installed) => {
      installed['node_modules/left-over'] = { version: '1.0.0' };
    });
    expect(staleness(prefix)).toBe('node_modules/left-over is not in the lockfile');
  });
});
