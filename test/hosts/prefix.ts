import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The hosts this suite drives (Claude Code, Gemini CLI, Codex CLI) are pinned in test/hosts/pinned (its
 * package.json and lockfile), apart from the root install: they weigh more than everything else together
 * and only `npm run test:hosts` uses them. Its first step runs this: `npm ci` into that prefix when it is
 * absent or no longer what its lockfile says, nothing otherwise. A folder of its own, so that the suite's
 * files stay in the repository's package (ES modules, its `#shared` imports).
 */
export const PREFIX = resolve(import.meta.dirname, 'pinned');

/** A host's executable in the prefix. */
export const hostBin = (name: string): string => join(PREFIX, 'node_modules', '.bin', name);

/** What to run when a host is missing. */
export const INSTALL = 'npm run test:hosts installs the pinned hosts (npm ci --prefix test/hosts/pinned)';

interface LockEntry {
  version?: string;
  integrity?: string;
  optional?: boolean;
  dev?: boolean;
}

const packagesOf = (file: string): Record<string, LockEntry> =>
  (JSON.parse(readFileSync(file, 'utf8')) as { packages?: Record<string, LockEntry> }).packages ?? {};

/**
 * Why the prefix must be installed again, or undefined when it is as the lockfile says. npm records what
 * it installed in node_modules/.package-lock.json: every package there must be the locked one, and every
 * locked package that is not optional (another platform's binary) must be there.
 */
export function staleness(prefix = PREFIX): string | undefined {
  const installed = join(prefix, 'node_modules', '.package-lock.json');
  if (!existsSync(installed)) return 'not installed';
  const locked = packagesOf(join(prefix, 'package-lock.json'));
  const present = packagesOf(installed);
  for (const [path, entry] of Object.entries(present)) {
    const want = locked[path];
    if (!want) return `${path} is not in the lockfile`;
    if (want.version !== entry.version || want.integrity !== entry.integrity) return `${path} is ${entry.version}, locked ${want.version}`;
  }
  for (const [path, entry] of Object.entries(locked)) {
    if (path === '' || entry.optional) continue;
    if (!present[path] || !existsSync(join(prefix, path))) return `${path} is missing`;
  }
  return undefined;
}

export function ensurePrefix(prefix = PREFIX): void {
  const why = staleness(prefix);
  if (!why) return;
  console.error(`test/hosts: installing the pinned hosts (${why}): npm ci --prefix test/hosts/pinned`);
  // The variables `npm run` sets for the root project would aim this npm at it; the prefix is explicit.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_(config|package|lifecycle)_/i.test(k)));
  execFileSync('npm', ['ci', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error'], {
    stdio: 'inherit',
    env: { ...env, NODE_OPTIONS: '' },
  });
  const after = staleness(prefix);
  if (after) throw new Error(`test/hosts: npm ci left the prefix stale (${after})`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) ensurePrefix();
