import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const exec = promisify(execFile);

/**
 * A PostgreSQL cluster of the bench's own, with pg_stat_statements loaded, so the database's own time per
 * call (planning and execution, as the server counts it) can be read without touching the machine's
 * shared server. Same PostgreSQL as that server (pg_config --bindir). Kept in .local/bench-pg and reused
 * by later runs; started for the run, stopped after. initdb refuses root, so it runs as `postgres`.
 */
export interface PrivatePg {
  /** Owner connection string to `database`. */
  url(database: string): string;
  stop(): Promise<void>;
}

const DIR = resolve('.local/bench-pg');
const PORT = Number(process.env.BENCH_PG_PORT ?? 55433);

async function asPostgres(cmd: string, args: string[]): Promise<string> {
  const bin = (await exec('pg_config', ['--bindir'])).stdout.trim();
  const run =
    process.getuid?.() === 0
      ? await exec('runuser', ['-u', 'postgres', '--', `${bin}/${cmd}`, ...args])
      : await exec(`${bin}/${cmd}`, args);
  return run.stdout;
}

export async function startPrivatePg(): Promise<PrivatePg> {
  if (!existsSync(`${DIR}/data/PG_VERSION`)) {
    await mkdir(DIR, { recursive: true });
    if (process.getuid?.() === 0) await exec('chown', ['postgres', DIR]);
    await asPostgres('initdb', ['-D', `${DIR}/data`, '-U', 'postgres', '--auth=trust', '--no-sync']);
  }
  const options = [
    `-p ${PORT}`,
    `-k ${DIR}`,
    '-c listen_addresses=127.0.0.1',
    '-c shared_preload_libraries=pg_stat_statements',
    '-c pg_stat_statements.track=top',
    '-c pg_stat_statements.track_planning=on',
    '-c max_connections=60',
    '-c shared_buffers=256MB',
    '-c fsync=off',
  ].join(' ');
  await asPostgres('pg_ctl', ['-D', `${DIR}/data`, '-o', options, '-l', `${DIR}/log`, '-w', 'start']);
  const url = (database: string) => `postgres://postgres@127.0.0.1:${PORT}/${database}`;
  const admin = new pg.Client({ connectionString: url('postgres') });
  await admin.connect();
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await admin.end();
  return { url, stop: async () => void (await asPostgres('pg_ctl', ['-D', `${DIR}/data`, '-m', 'fast', '-w', 'stop'])) };
}
