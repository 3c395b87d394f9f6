import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import type { DemoManifest } from '#shared/admin/demo.js';
import { reads } from '#shared/reads/registry.js';
import type { LocalApi } from '../../local/stack.js';
import { startTestApi } from '../support/api.js';
import { captureLogLines } from '../support/capture.js';
import { contractProblems, get } from './support/contract.js';
import { type PgProxy, startPgProxy } from './support/pg-proxy.js';
import type { RawReply } from './support/raw-http.js';
import { freshDemoStore, SERVER_URL, type ServerDatabase } from './support/stores.js';
import { fillPath, pathValues } from './support/targets.js';

/**
 * docs/errors.md#faults: which failure of the measurement store answers which code, each provoked for real
 * (the server itself through an owner connection, or the TCP proxy where the shared server cannot be
 * made to refuse that way), each checked on the wire and in the log line that carries the cause.
 */

interface Expected {
  status: number;
  code: string;
  retryAfter: string | undefined;
  /** Budget headers: present when the fault came after the counter (in the read), absent before it. */
  budget: boolean;
  cause: { fault: string; phase: string; sqlstate?: string; errno?: string; message?: RegExp };
}

const UNAVAILABLE = { status: 503, code: 'upstream_timeout', retryAfter: '20' } as const;
const CONFIGURATION = { status: 500, code: 'internal_error', retryAfter: undefined } as const;

describe('store faults are classified: unavailable → 503 upstream_timeout, configuration → 500, a failed reach statement → 503 rate_limit_unavailable', () => {
  let database: ServerDatabase;
  let manifest: DemoManifest;
  let proxy: PgProxy;
  let admin: pg.Client;
  let server: pg.Client;

  beforeAll(async () => {
    const fresh = await freshDemoStore('geo_rel_class');
    database = fresh.database;
    manifest = fresh.store.manifest!;
    proxy = await startPgProxy({ host: '127.0.0.1', port: 5432, database: database.name });
    admin = new pg.Client({ connectionString: database.adminUrl });
    await admin.connect();
    // ALTER DATABASE is run from another database, so that no owner session holds a slot of this one.
    server = new pg.Client({ connectionString: SERVER_URL });
    await server.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await server?.end();
    await proxy?.close();
    await database?.drop();
  });

  const api = (overrides: Record<string, string> = {}): Promise<LocalApi> =>
    startTestApi({
      DATABASE_URL: proxy.url('geo_reader'),
      DB_CONNECT_TIMEOUT_MS: '1500',
      DB_STATEMENT_TIMEOUT_MS: '5000',
      DB_POOL_MAX: '4',
      PLAN_CEILINGS: JSON.stringify({ growth: 1_000_000 }),
      LOG_LEVEL: 'INFO',
      ...overrides,
    });

  /** One call, its reply and the log lines of its request id. */
  const observe = async (target: LocalApi, path: string): Promise<{ reply: RawReply; lines: Array<Record<string, any>> }> => {
    let reply!: RawReply;
    const all = await captureLogLines(async () => {
      reply = await get(target, path, manifest.keys.workspace);
    });
    return { reply, lines: all.filter((l) => l.request_id === reply.header('x-request-id')) };
  };

  /** A call whose log lines are not wanted (warming a pool, checking recovery). */
  const quietStatus = async (target: LocalApi, path: string): Promise<number> => {
    let status = 0;
    await captureLogLines(async () => {
      status = (await get(target, path, manifest.keys.workspace)).status;
    });
    return status;
  };

  const expectClassified = ({ reply, lines }: { reply: RawReply; lines: Array<Record<string, any>> }, want: Expected): void => {
    expect(contractProblems(reply, undefined).filter((p) => !p.startsWith('status 500'))).toEqual([]);
    expect({ status: reply.status, code: reply.body?.error?.code, retryAfter: reply.header('retry-after') }).toEqual({
      status: want.status,
      code: want.code,
      retryAfter: want.retryAfter,
    });
    expect(reply.header('x-ratelimit-limit') !== undefined).toBe(want.budget);
    // Nothing of the cause reaches the caller.
    expect(reply.text).not.toMatch(/SQLSTATE|pg_hba|password|SSL|too many|terminat|ENOTFOUND|permission|lock/i);
    const request = lines.find((l) => l.message === 'request');
    expect(request?.error_code).toBe(want.code);
    const fault = lines.find((l) => l.message === 'fault' || l.message === 'unhandled fault');
    // One line per call carries error_code (the alarms' metric filters count it): the request line.
    expect(lines.filter((l) => l.error_code !== undefined).length).toBe(1);
    const { message, ...fields } = want.cause;
    expect(fault?.cause).toMatchObject(fields);
    if (message) expect(fault?.cause?.message).toMatch(message);
  };

  test('connection limit reached (53300) on the first connection: 503 upstream_timeout, before the budget', async () => {
    const target = await api();
    await server.query(`ALTER DATABASE ${database.name} CONNECTION LIMIT 0`);
    try {
      expectClassified(await observe(target, '/me'), {
        ...UNAVAILABLE,
        budget: false,
        cause: { fault: 'unavailable', phase: 'connect', sqlstate: '53300', message: /too many connections/ },
      });
    } finally {
      await server.query(`ALTER DATABASE ${database.name} CONNECTION LIMIT -1`);
      await target.close();
    }
  });

  test('a figure read at the connection limit answers like /me: 503 upstream_timeout, never 500', async () => {
    // Every read is one statement on one connection (migration 006), taken from the pool after the
    // caller statement gave it back; a read that needs a connection the database will not open says so.
    const target = await api();
    await server.query(`ALTER DATABASE ${database.name} CONNECTION LIMIT 0`);
    try {
      for (const p of ['metrics', 'engines', 'competitors', 'groups', 'sources', 'metrics/timeseries']) {
        expectClassified(await observe(target, `/analyses/${manifest.analyses.collected}/${p}`), {
          ...UNAVAILABLE,
          budget: false,
          cause: { fault: 'unavailable', phase: 'connect', sqlstate: '53300' },
        });
      }
    } finally {
      await server.query(`ALTER DATABASE ${database.name} CONNECTION LIMIT -1`);
      await target.close();
    }
  });

  test('a read whose own connection is lost after the caller statement: 503 upstream_timeout with the wake delay, and the budget headers (it passed the budget)', async () => {
    // The caller statement runs and answers; the budget is spent; then the connection that carries the
    // read's one statement (api_* other than the caller statement, api_caller) is closed by the proxy before the statement
    // reaches the server, as a store restarting or a network dropping between the two would.
    const readStatement = /\bapi_(?!caller\b)\w+\(/;
    const values = pathValues(manifest);
    const targets = reads.filter((r) => r.path && r.name !== 'get_me').map((r) => ({ name: r.name, path: fillPath(r.path, values) }));
    // Every read but get_me, whose figures come with the caller statement: it sends no statement of its own.
    expect(targets.length).toBe(reads.length - 1);
    const target = await api();
    try {
      for (const { name, path } of targets) {
        const before = proxy.cuts();
        proxy.cutOnStatement(readStatement);
        const seen = await observe(target, path);
        proxy.cutOnStatement(null);
        // The cut fell on this call's read statement, so the caller statement had been answered.
        expect({ name, cuts: proxy.cuts() - before }).toEqual({ name, cuts: 1 });
        expectClassified(seen, {
          ...UNAVAILABLE,
          budget: true,
          cause: { fault: 'unavailable', phase: 'query', message: /Connection terminated/ },
        });
        expect(seen.reply.header('x-ratelimit-remaining')).toMatch(/^\d+$/);
        expect(seen.reply.header('x-ratelimit-reset')).toMatch(/^\d+$/);
        // The pool dropped the lost connection: the same read is served again at once.
        expect({ name, status: await quietStatus(target, path) }).toEqual({ name, status: 200 });
      }
    } finally {
      proxy.cutOnStatement(null);
      await target.close();
    }
  });

  test('database not accepting connections (55000): 503 upstream_timeout', async () => {
    const target = await api();
    await server.query(`ALTER DATABASE ${database.name} ALLOW_CONNECTIONS false`);
    try {
      expectClassified(await observe(target, '/me'), {
        ...UNAVAILABLE,
        budget: false,
        cause: { fault: 'unavailable', phase: 'connect', sqlstate: '55000', message: /not currently accepting connections/ },
      });
    } finally {
      await server.query(`ALTER DATABASE ${database.name} ALLOW_CONNECTIONS true`);
      await target.close();
    }
  });

  test('the backend terminated during the statement (57P01): 503 upstream_timeout; the next call is served', async () => {
    const target = await api();
    const locker = new pg.Client({ connectionString: database.adminUrl });
    await locker.connect();
    try {
      expect(await quietStatus(target, '/me')).toBe(200);
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE');
      const pending = observe(target, '/me');
      // The caller statement waits on the lock, on the server; then an operator terminates it.
      let pids: number[] = [];
      while (pids.length === 0) {
        await new Promise((r) => setTimeout(r, 20));
        pids = (
          await admin.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND usename = 'geo_reader' AND wait_event_type = 'Lock'`,
            [database.name],
          )
        ).rows.map((r) => r.pid);
      }
      for (const pid of pids) await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      expectClassified(await pending, {
        ...UNAVAILABLE,
        budget: false,
        cause: { fault: 'unavailable', phase: 'query', sqlstate: '57P01', message: /terminating connection/ },
      });
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
    try {
      expect(await quietStatus(target, '/me')).toBe(200);
    } finally {
      await target.close();
    }
  });

  test('the server starting up (57P03, the proxy answers as the server does): 503 upstream_timeout', async () => {
    const target = await api();
    proxy.refuseStartup({ code: '57P03', message: 'the database system is starting up' });
    try {
      expectClassified(await observe(target, '/me'), {
        ...UNAVAILABLE,
        budget: false,
        cause: { fault: 'unavailable', phase: 'connect', sqlstate: '57P03', message: /starting up/ },
      });
    } finally {
      proxy.refuseStartup(null);
      await target.close();
    }
  });

  test('TLS required by the service, not offered by the server (sslmode=require): 500 internal_error, the cause logged', async () => {
    const target = await api({ DATABASE_URL: `${proxy.url('geo_reader')}?sslmode=require` });
    try {
      expectClassified(await observe(target, '/me'), {
        ...CONFIGURATION,
        budget: false,
        cause: { fault: 'configuration', phase: 'connect', message: /SSL/ },
      });
    } finally {
      await target.close();
    }
  });

  test('TLS required by the server, not used by the service (pg_hba hostssl; the proxy answers as the server does): 500 internal_error', async () => {
    const target = await api();
    proxy.refuseStartup({
      code: '28000',
      message: `no pg_hba.conf entry for host "127.0.0.1", user "geo_reader", database "${database.name}", no encryption`,
    });
    try {
      expectClassified(await observe(target, '/me'), {
        ...CONFIGURATION,
        budget: false,
        cause: { fault: 'configuration', phase: 'connect', sqlstate: '28000', message: /no encryption/ },
      });
    } finally {
      proxy.refuseStartup(null);
      await target.close();
    }
  });

  test('wrong password (28P01; the shared server trusts every login, so the proxy asks and refuses as a server does): 500 internal_error', async () => {
    const url = new URL(proxy.url('geo_reader'));
    url.password = 'not-the-password';
    const target = await api({ DATABASE_URL: url.toString() });
    proxy.refuseStartup({ code: '28P01', message: 'password authentication failed for user "geo_reader"', askPassword: true });
    try {
      const seen = await observe(target, '/me');
      expectClassified(seen, {
        ...CONFIGURATION,
        budget: false,
        cause: { fault: 'configuration', phase: 'connect', sqlstate: '28P01', message: /password authentication failed/ },
      });
      // The password itself is logged nowhere.
      expect(JSON.stringify(seen.lines)).not.toContain('not-the-password');
    } finally {
      proxy.refuseStartup(null);
      await target.close();
    }
  });

  test('unknown role (28000) and unknown database (3D000), refused by the server itself: 500 internal_error', async () => {
    const role = await api({ DATABASE_URL: proxy.url('geo_nobody') });
    const url = new URL(proxy.url('geo_reader'));
    url.pathname = `/${database.name}_missing`;
    const db = await api({ DATABASE_URL: url.toString() });
    try {
      expectClassified(await observe(role, '/me'), {
        ...CONFIGURATION,
        budget: false,
        cause: { fault: 'configuration', phase: 'connect', sqlstate: '28000', message: /role "geo_nobody" does not exist/ },
      });
      expectClassified(await observe(db, '/me'), {
        ...CONFIGURATION,
        budget: false,
        cause: { fault: 'configuration', phase: 'connect', sqlstate: '3D000', message: /does not exist/ },
      });
    } finally {
      await role.close();
      await db.close();
    }
  });

  test('a host name that does not resolve: ENOTFOUND is configuration (500); a resolver failing for now (EAI_AGAIN) would be 503', async () => {
    const url = new URL(proxy.url('geo_reader'));
    url.hostname = 'geo-store.invalid';
    const target = await api({ DATABASE_URL: url.toString() });
    try {
      const seen = await observe(target, '/me');
      const errno = seen.lines.find((l) => l.message === 'fault')?.cause?.errno;
      if (errno === 'EAI_AGAIN') {
        expectClassified(seen, { ...UNAVAILABLE, budget: false, cause: { fault: 'unavailable', phase: 'connect', errno } });
      } else {
        expectClassified(seen, {
          ...CONFIGURATION,
          budget: false,
          cause: { fault: 'configuration', phase: 'connect', errno: 'ENOTFOUND' },
        });
      }
    } finally {
      await target.close();
    }
  });

  test('permission denied in the caller statement (42501): a grant missing is configuration, 500 internal_error', async () => {
    const target = await api();
    await admin.query('REVOKE SELECT ON members FROM geo_reader');
    try {
      expectClassified(await observe(target, '/me'), {
        ...CONFIGURATION,
        budget: false,
        cause: { fault: 'configuration', phase: 'query', sqlstate: '42501', message: /permission denied for table members/ },
      });
    } finally {
      await admin.query('GRANT SELECT ON members TO geo_reader');
      await target.close();
    }
  });

  test('the store answering and the reach statement failing (55P03 lock timeout): 503 rate_limit_unavailable; the same in a read: 500 internal_error', async () => {
    // Sessions of the service role in this database only give up on a lock after 100 ms.
    await server.query(`ALTER ROLE geo_reader IN DATABASE ${database.name} SET lock_timeout = '100ms'`);
    const target = await api();
    const locker = new pg.Client({ connectionString: database.adminUrl });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE');
      expectClassified(await observe(target, '/me'), {
        status: 503,
        code: 'rate_limit_unavailable',
        retryAfter: '1',
        budget: false,
        cause: { fault: 'statement', phase: 'query', sqlstate: '55P03', message: /lock timeout/ },
      });
      await locker.query('ROLLBACK');
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE runs IN ACCESS EXCLUSIVE MODE');
      expectClassified(await observe(target, `/analyses/${manifest.analyses.collected}/runs`), {
        status: 500,
        code: 'internal_error',
        retryAfter: undefined,
        budget: true,
        cause: { fault: 'statement', phase: 'query', sqlstate: '55P03' },
      });
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
      await server.query(`ALTER ROLE geo_reader IN DATABASE ${database.name} RESET lock_timeout`);
      await target.close();
    }
  });
});
