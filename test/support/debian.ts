import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** A Debian package's binary, installed with scripts/ensure-debian.sh where missing; `why` goes in the error. */
export function ensureDebian(binary: string, pkg: string, why: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(import.meta.dirname, '..', '..', 'scripts', 'ensure-debian.sh'), binary, pkg], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) =>
      code === 0
        ? resolve(out.trim().split('\n').pop() as string)
        : reject(new Error(`${why} needs Debian's ${pkg}; scripts/ensure-debian.sh exited with ${code}:\n${err.slice(-2000)}`)),
    );
  });
}
