import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * A tool pinned apart from the root install: a folder with its own package.json and lockfile, installed
 * by the command that uses it (`npm ci --prefix`) when it is absent or no longer what its lockfile says.
 * For tools only one command uses and that weigh much (the assistant hosts of `npm run test:hosts`,
 * Spectral for `npm run lint:openapi`), so `npm ci` at the root stays light for everyone else.
 */

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
export function staleness(prefix: string): string | undefined {
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

/** Installs the prefix from its lockfile unless it is as the lockfile says; `what` names it in the notice. */
export function ensurePrefix(prefix: string, what: string): void {
  const why = staleness(prefix);
  if (!why) return;
  const where = relative(process.cwd(), prefix) || prefix;
  console.error(`installing ${what} (${why}): npm ci --prefix ${where}`);
  // The variables `npm run` sets for the root project would aim this npm at it; the prefix is explicit.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_(config|package|lifecycle)_/i.test(k)));
  execFileSync('npm', ['ci', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error'], {
    stdio: 'inherit',
    env: { ...env, NODE_OPTIONS: '' },
  });
  const after = staleness(prefix);
  if (after) throw new Error(`npm ci left ${where} stale (${after})`);
}
