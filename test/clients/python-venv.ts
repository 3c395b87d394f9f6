import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { debianInstallHint } from '../support/debian.js';

const run = promisify(execFile);

/** The Python client's folder, and the oldest Python it supports (clients/python/pyproject.toml). */
export const PYTHON_CLIENT = join(process.cwd(), 'clients', 'python');
const MINIMUM = [3, 10] as const;

/**
 * Why the Python tests cannot run here, or undefined when they can: python3 3.10+ with `venv` and
 * `ensurepip` (Debian splits them into python3-venv). Decided before `describe`, so the tests are
 * skipped with this notice rather than failing.
 */
export function pythonUnavailable(): string | undefined {
  const probe = spawnSync('python3', ['-c', 'import sys, venv, ensurepip; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
  if (probe.error) return `python3 is not installed: ${debianInstallHint('python3-venv')}`;
  if (probe.status !== 0) return `python3 cannot create a virtual environment (no venv/ensurepip): ${debianInstallHint('python3-venv')}`;
  const [major, minor] = probe.stdout.trim().split('.').map(Number) as [number, number];
  if (major < MINIMUM[0] || (major === MINIMUM[0] && minor < MINIMUM[1]))
    return `python3 is ${major}.${minor}; the client needs 3.10 or newer`;
  return undefined;
}

export interface PythonVenv {
  /** The virtual environment's interpreter, with the client installed. */
  python: string;
  /** pip's output of the install. */
  installLog: string;
  remove(): Promise<void>;
}

/**
 * A fresh virtual environment in a temporary folder with the client installed by pip as a user would,
 * but offline: `--no-index`, so nothing can come from a package index (the package has no dependencies
 * and its build backend needs nothing but the standard library).
 */
export async function freshVenv(): Promise<PythonVenv> {
  const dir = await mkdtemp(join(tmpdir(), 'geo-python-'));
  try {
    await run('python3', ['-m', 'venv', join(dir, 'venv')]);
    const python = join(dir, 'venv', 'bin', 'python');
    // No index, no configuration file, no local wheel folder: whatever the machine's pip settings, the
    // package must install from its own folder alone.
    const { PIP_FIND_LINKS: _links, PIP_EXTRA_INDEX_URL: _extra, PIP_INDEX_URL: _index, ...env } = process.env;
    const install = await run(python, ['-m', 'pip', 'install', '--no-index', '--disable-pip-version-check', PYTHON_CLIENT], {
      env: { ...env, PIP_NO_INDEX: '1', PIP_CONFIG_FILE: '/dev/null' },
    });
    return { python, installLog: install.stdout + install.stderr, remove: () => rm(dir, { recursive: true, force: true }) };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the venv's python with arguments, never throwing on a non-zero exit (the caller asserts it). */
export async function runPython(
  python: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Ran> {
  try {
    const { stdout, stderr } = await run(python, args, {
      cwd: options.cwd ?? PYTHON_CLIENT,
      // No __pycache__ left in the source tree by a test run.
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...options.env },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(error) };
  }
}
