import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { requireDebianBinary } from '../support/debian.js';

const exec = promisify(execFile);

/**
 * PgBouncer in transaction mode in front of the PostgreSQL server: what RDS Proxy does for the deployed
 * functions. A fresh function process then borrows a server connection that earlier processes warmed
 * (catalog caches loaded, the api_* functions compiled and their plans cached), as a cold Lambda borrows
 * one of the proxy's, instead of starting a backend of its own as a direct connection does. Debian's
 * pgbouncer, which the bench does not install: missing, it stops with the command that does
 * (scripts/install-debian-packages.sh); it refuses to run as root, so it runs as `postgres`. Clients must
 * not send statement_timeout in their startup packet (as behind RDS Proxy: DB_SEND_STATEMENT_TIMEOUT=false).
 */
export interface Pooler {
  /** `url` (a connection string to the server) rewritten to go through the pooler. */
  through(url: string): string;
  stop(): Promise<void>;
}

const DIR = resolve('.local/bench-pgbouncer');
const PORT = Number(process.env.BENCH_POOLER_PORT ?? 56432);

async function asPostgres(cmd: string, args: string[]): Promise<string> {
  const run = process.getuid?.() === 0 ? await exec('runuser', ['-u', 'postgres', '--', cmd, ...args]) : await exec(cmd, args);
  return run.stdout;
}

export async function startPooler(server: URL): Promise<Pooler> {
  const bin = requireDebianBinary('/usr/sbin/pgbouncer', 'pgbouncer', 'the cold-start bench (npm run bench bundles)');
  await mkdir(DIR, { recursive: true });
  if (process.getuid?.() === 0) await exec('chown', ['postgres', DIR]);
  await writeFile(`${DIR}/users.txt`, '"geo_reader" ""\n"postgres" ""\n');
  await writeFile(
    `${DIR}/pgbouncer.ini`,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${PORT}`,
      `unix_socket_dir = ${DIR}`,
      'auth_type = trust',
      `auth_file = ${DIR}/users.txt`,
      'pool_mode = transaction',
      'default_pool_size = 4',
      'max_client_conn = 200',
      // LIFO: the connection used last, hence warm, serves the next client.
      'server_round_robin = 0',
      `pidfile = ${DIR}/pgbouncer.pid`,
      `logfile = ${DIR}/pgbouncer.log`,
    ].join('\n'),
  );
  if (existsSync(`${DIR}/pgbouncer.pid`)) {
    const pid = Number((await readFile(`${DIR}/pgbouncer.pid`, 'utf8')).trim());
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // not running
    }
  }
  await asPostgres(bin, ['-d', `${DIR}/pgbouncer.ini`]);
  return {
    through(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(PORT);
      return u.toString();
    },
    async stop() {
      const pid = Number((await readFile(`${DIR}/pgbouncer.pid`, 'utf8')).trim());
      process.kill(pid, 'SIGTERM');
    },
  };
}
