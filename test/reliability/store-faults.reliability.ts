import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import type { DemoManifest } from '#shared/admin/demo.js';
import type { LocalApi } from '../../local/stack.js';
import { startTestApi } from '../support/api.js';
import { contractProblems, get, unavailableProblems } from './support/contract.js';
import { type PgProxy, startPgProxy } from './support/pg-proxy.js';
import type { RawReply } from './support/raw-http.js';
import { freshDemoStore, type ServerDatabase } from './support/stores.js';
import { concreteRoutes } from './support/targets.js';

// Small on purpose: the bound of a call is what these make it, and the battery must stay fast.
const CONNECT_MS = 500;
const STATEMENT_MS = 800;
const POOL = 4;
/** The client gives up STATEMENT_MS + 1000 after sending (shared/store/db.ts); plus scheduling slack. */
const BOUND_MS = STATEMENT_MS + 1000 + 700;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the measurement store asleep, slow, hung or refusing: 503 upstream_timeout, then recovery without restart', () => {
  let database: ServerDatabase;
  let manifest: DemoManifest;
  let proxy: PgProxy;
  let api: LocalApi;
  let admin: pg.Client;
  let readPaths: string[];

  /** Backends of the service role still running a statement on this database. */
  const activeReaderQueries = async (): Promise<Array<{ pid: number; state: string; wait: string | null; query: string }>> =>
    (
      await admin.query(
        `SELECT pid, state, wait_event_type AS wait, query FROM pg_stat_activity
          WHERE datname = $1 AND usename = 'geo_reader' AND state = 'active'`,
        [database.name],
      )
    ).rows;

  /**
   * n calls, as many at a time as the pool has connections: more would wait for a connection and, on a
   * loaded machine, past the small connect bound of this file, which is a refusal, not a recovery failure.
   */
  const expectAllServed = async (n: number): Promise<void> => {
    const bad: string[] = [];
    for (let i = 0; i < n; i += POOL) {
      const batch = Array.from({ length: Math.min(POOL, n - i) }, (_, j) =>
        get(api, readPaths[(i + j) % readPaths.length] as string, manifest.keys.workspace),
      );
      for (const r of await Promise.all(batch)) if (r.status !== 200) bad.push(`${r.status} ${r.text.slice(0, 120)}`);
    }
    expect(bad).toEqual([]);
  };

  const expectAllRefused = (replies: RawReply[]): void => {
    const problems = replies.flatMap((r, i) =>
      unavailableProblems(r, 'upstream_timeout', BOUND_MS).map((p) => `${readPaths[i % readPaths.length]}: ${p}`),
    );
    expect(problems).toEqual([]);
  };

  beforeAll(async () => {
    const fresh = await freshDemoStore('geo_rel_faults');
    database = fresh.database;
    manifest = fresh.store.manifest!;
    proxy = await startPgProxy({ host: '127.0.0.1', port: 5432, database: database.name });
    api = await startTestApi({
      DATABASE_URL: proxy.url('geo_reader'),
      DB_CONNECT_TIMEOUT_MS: String(CONNECT_MS),
      DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS),
      DB_POOL_MAX: String(POOL),
      PLAN_CEILINGS: JSON.stringify({ growth: 1_000_000 }),
    });
    admin = new pg.Client({ connectionString: database.adminUrl });
    await admin.connect();
    readPaths = concreteRoutes(manifest)
      .filter((r) => r.route.read)
      .map((r) => r.path.replace(/^\/api\/v1/, ''));
  });

  afterAll(async () => {
    await api?.close();
    await admin?.end();
    await proxy?.close();
    await database?.drop();
  });

  test('every read is served through the proxy; statement_timeout travels as a startup parameter and is in force on the server', async () => {
    await expectAllServed(readPaths.length);
    const reader = proxy.startups.filter((s) => s.user === 'geo_reader');
    expect(reader.length).toBeGreaterThan(0);
    for (const s of reader) expect(s.statement_timeout).toBe(String(STATEMENT_MS));
    // Asked on the service's own pool, through the proxy: the server session runs with it.
    const rows = await api.services.db.query<{ statement_timeout: string }>('SHOW statement_timeout');
    expect(rows[0]?.statement_timeout).toBe(`${STATEMENT_MS}ms`);
  });

  test('a statement hung on the server is cancelled by the server at statement_timeout, not left running', async () => {
    // The owner holds a lock the caller statement needs: the statement reaches the server and waits there.
    // A second owner connection: pg_stat_activity is a snapshot taken once per transaction, so the
    // observer must not be the connection holding the lock inside its transaction.
    const locker = new pg.Client({ connectionString: database.adminUrl });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE');
    try {
      const pending = get(api, '/me', manifest.keys.workspace);
      let seen: Awaited<ReturnType<typeof activeReaderQueries>> = [];
      for (let i = 0; i < 40 && seen.length === 0; i += 1) {
        await sleep(25);
        seen = await activeReaderQueries();
      }
      // It really is running on the server, waiting on the lock.
      expect(seen.map((q) => q.wait)).toContain('Lock');
      const reply = await pending;
      expect(unavailableProblems(reply, 'upstream_timeout', BOUND_MS)).toEqual([]);
      // Before the client's own read timeout (STATEMENT_MS + 1000): the server cancelled it (SQLSTATE 57014).
      expect(reply.ms).toBeLessThan(STATEMENT_MS + 1000);
      expect(reply.ms).toBeGreaterThanOrEqual(STATEMENT_MS - 50);
      // The lock is still held, so a statement left running would still be there.
      expect(await activeReaderQueries()).toEqual([]);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    await expectAllServed(8);
  });

  test('store asleep (the proxy holds every byte): every read answers 503 within the bound; released, the next call succeeds', async () => {
    await proxy.setMode('hold');
    try {
      // Twice as many calls as the pool holds: idle connections, new connections and queued checkouts all fail in time.
      const replies = await Promise.all(
        Array.from({ length: Math.max(8, readPaths.length) }, (_, i) =>
          get(api, readPaths[i % readPaths.length] as string, manifest.keys.workspace),
        ),
      );
      expectAllRefused(replies);
      expect(replies[0]?.header('retry-after')).toBe('20');
    } finally {
      await proxy.setMode('pass');
    }
    const next = await get(api, '/me', manifest.keys.workspace);
    expect(contractProblems(next, undefined).filter((p) => !p.startsWith('200 on'))).toEqual([]);
    expect(next.status).toBe(200);
    await expectAllServed(30);
  });

  test('store slow (each chunk delayed past the bound): 503 in time; a slow but bounded store is served', async () => {
    await proxy.setMode('delay', 2500);
    try {
      expectAllRefused(await Promise.all(readPaths.slice(0, 6).map((p) => get(api, p, manifest.keys.workspace))));
    } finally {
      await proxy.setMode('delay', 40);
    }
    try {
      await expectAllServed(6);
    } finally {
      await proxy.setMode('pass');
    }
    await expectAllServed(20);
  });

  test('store refusing connections (ECONNREFUSED, live connections cut): 503 upstream_timeout; back, served with no restart', async () => {
    await proxy.setMode('refuse');
    try {
      const replies = await Promise.all(readPaths.map((p) => get(api, p, manifest.keys.workspace)));
      expectAllRefused(replies);
      // Refused is fast: no waiting for a timeout.
      expect(Math.max(...replies.map((r) => r.ms))).toBeLessThan(CONNECT_MS + 400);
    } finally {
      await proxy.setMode('pass');
    }
    await expectAllServed(30);
  });

  test('after all of it: no statement of the service role is left running on the server', async () => {
    expect(await activeReaderQueries()).toEqual([]);
  });
});
