import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import type { DemoManifest } from '#shared/admin/demo.js';
import { parseConfig } from '#shared/config/service.js';
import { fingerprint } from '#shared/keys.js';
import { meSchema } from '#shared/reads/identity/me.js';
import { lookupCaller } from '#shared/store/caller.js';
import { createDb, type Db } from '#shared/store/db.js';
import type { Queryable } from '#shared/store/queryable.js';
import { writerConfig } from '#shared/store/services.js';
import { createStamper } from '#shared/store/stamp.js';
import { freshTableName, type LocalApi, startApi } from '../../local/stack.js';
import { createBudgetTable, type LocalStore } from '../../local/stores.js';
import { call, dynamoEndpoint, expectServed, testConfig } from '../support/api.js';
import { startOwnStore } from '../support/own-store.js';

/**
 * The last_used_at stamp never decides whether a read is served. The service reads
 * from a session that may not write (a reader instance, a hot standby, a role or database with
 * default_transaction_read_only): every read is served, /me counts the call as a use, and nothing is
 * written. The store is this file's own, turned read-only after the demo is written: on the PostgreSQL
 * server (DATABASE_URL set) the database itself (ALTER DATABASE ... SET default_transaction_read_only),
 * embedded the one PGlite backend every connection shares.
 */
async function readOnly(db: Queryable): Promise<void> {
  await db.query(`UPDATE api_keys SET last_used_at = NULL`);
  await db.query(`DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_read_only = on', current_database()); END $$`);
  await db.query('SET default_transaction_read_only = on');
}

let store: LocalStore;
let api: LocalApi;
let manifest: DemoManifest;
let reader: pg.Client;
beforeAll(async () => {
  store = await startOwnStore('geo_test_readonly', readOnly);
  manifest = store.manifest!;
  const table = freshTableName();
  await createBudgetTable(dynamoEndpoint(), table);
  api = await startApi(testConfig(store.readerUrl, { BUDGET_TABLE: table, LAST_USED_THROTTLE_SECONDS: '60' }));
  reader = new pg.Client({ connectionString: store.readerUrl });
  await reader.connect();
}, 120_000);
afterAll(async () => {
  await reader?.end();
  await api?.close();
  await store?.close();
});

const stored = async (secret: string): Promise<Date | null> =>
  (await reader.query<{ at: Date | null }>('SELECT last_used_at AS at FROM api_keys WHERE fingerprint = $1', [fingerprint(secret)]))
    .rows[0]!.at;

describe('a read-only session serves every read', () => {
  test('the session really is read-only: the stamp the caller statement used to write is refused there', async () => {
    expect((await reader.query('SHOW transaction_read_only')).rows[0].transaction_read_only).toBe('on');
    await expect(reader.query('UPDATE api_keys SET last_used_at = now()')).rejects.toThrow(/read-only transaction/);
  });

  test('keys of every scope are served, /me counts this call as a use, nothing is written', async () => {
    for (const label of ['workspace', 'brand', 'analysis'] as const) {
      const key = manifest.keys[label];
      expect(await stored(key)).toBeNull();
      const t0 = Date.now();
      const me = expectServed(await call(api, '/me', key), meSchema);
      // The stamp was due (never stamped): the reply says this call, as a writable store would have kept it.
      expect(Math.abs(Date.parse(me.key.last_used_at) - t0)).toBeLessThan(5000);
      expect(me.reach.analyses).toBeGreaterThan(0);
      const list = await call(api, '/analyses', key);
      expect(list.status).toBe(200);
      const slug = (list.body as { items: Array<{ slug: string }> }).items[0]!.slug;
      expect((await call(api, `/analyses/${slug}`, key)).status).toBe(200);
      expect((await call(api, `/analyses/${slug}/metrics`, key)).status).toBe(200);
      expect(await stored(key)).toBeNull();
    }
  });

  test('figure, catalogue and MCP reads are served', async () => {
    const key = manifest.keys.workspace;
    const a = manifest.analyses.collected;
    for (const path of [`/analyses/${a}/metrics`, `/analyses/${a}/runs`, `/analyses/${a}/answers`, `/analyses/${a}/groups`])
      expect({ path, status: (await call(api, path, key)).status }).toEqual({ path, status: 200 });
    const mcp = await fetch(`${api.baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_analysis', arguments: { analysis: a } } }),
    });
    expect(mcp.status).toBe(200);
    const result = ((await mcp.json()) as { result: { isError?: boolean; structuredContent: { slug: string } } }).result;
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent.slug).toBe(a);
  });
});

/**
 * DB_WRITER_HOST: the stamp goes to the writer on a connection of its own, at most once per throttle
 * period per key from a process; the writer failing or hanging never holds or refuses the read.
 */
describe('the stamp on a writer of its own', () => {
  const statements = (db: Db, seen: string[]): Db => ({
    query: (text, params) => {
      seen.push(text);
      return db.query(text, params);
    },
  });
  let writerPool: pg.Pool;
  beforeAll(() => {
    // The owner's connection, made writable for this session: it stands in for the writer instance.
    const url = new URL(store.readerUrl);
    writerPool = new pg.Pool({ connectionString: url.toString(), max: 1, options: '-c default_transaction_read_only=off' });
  });
  afterAll(() => writerPool.end());

  // A second, writable session of the same role and database exists on the server only: PGlite is one backend.
  const onServer = process.env.DATABASE_URL ? test : test.skip;
  onServer('the stamp is kept on the writer, once per throttle period, while the reads run on the read-only session', async () => {
    const readerPool = new pg.Pool({ connectionString: store.readerUrl, max: 1 });
    try {
      const seen: string[] = [];
      const stamp = createStamper(statements(createDb(writerPool), seen), 60);
      const key = manifest.keys.other_workspace;
      expect(await stored(key)).toBeNull();
      const caller = await lookupCaller(createDb(readerPool), fingerprint(key), { lastUsedThrottleSeconds: 60, stamp });
      await caller.stamped;
      expect(seen).toHaveLength(1);
      const at = await stored(key);
      expect(at).not.toBeNull();
      expect(Math.abs((at as Date).getTime() - caller.key.lastUsedAt.getTime())).toBeLessThan(5000);
      // The reader may still say "due" (a replica lagging): the process does not send it again.
      await (await lookupCaller(createDb(readerPool), fingerprint(key), { lastUsedThrottleSeconds: 60, stamp })).stamped;
      expect(seen).toHaveLength(1);
    } finally {
      await readerPool.end();
    }
  });

  test('a writer that refuses or hangs: the caller is served, the wait is bounded', async () => {
    const readerPool = new pg.Pool({ connectionString: store.readerUrl, max: 1 });
    try {
      const refusing: Db = {
        query: () => Promise.reject(Object.assign(new Error('cannot execute UPDATE in a read-only transaction'), { code: '25006' })),
      };
      const hanging: Db = { query: () => new Promise(() => undefined) };
      for (const writer of [refusing, hanging]) {
        const key = manifest.keys.workspace;
        const caller = await lookupCaller(createDb(readerPool), fingerprint(key), {
          lastUsedThrottleSeconds: 60,
          stamp: createStamper(writer, 60, 50),
        });
        const t0 = performance.now();
        await caller.stamped;
        expect(performance.now() - t0).toBeLessThan(1000);
        expect(caller.workspace.slug).toBeTruthy();
      }
    } finally {
      await readerPool.end();
    }
  });

  test("the writer pool: the main pool's settings on the writer's host, one connection", () => {
    const cfg = parseConfig({
      DATABASE_URL: 'postgres://geo_reader@reader.example:6432/geo?sslmode=require',
      CURSOR_SECRET: 'x'.repeat(32),
    });
    const w = writerConfig(cfg, 'writer.example');
    expect(w.DATABASE_URL).toBe('postgres://geo_reader@writer.example:6432/geo?sslmode=require');
    expect({ host: w.DB_HOST, max: w.DB_POOL_MAX }).toEqual({ host: 'writer.example', max: 1 });
    const iam = parseConfig({ DB_HOST: 'proxy-ro.example', DB_IAM_AUTH: 'true', CURSOR_SECRET: 'x'.repeat(32) });
    const wi = writerConfig(iam, 'proxy.example');
    expect({ host: wi.DB_HOST, port: wi.DB_PORT, user: wi.DB_USER, db: wi.DB_NAME, iam: wi.DB_IAM_AUTH, url: wi.DATABASE_URL }).toEqual({
      host: 'proxy.example',
      port: iam.DB_PORT,
      user: iam.DB_USER,
      db: iam.DB_NAME,
      iam: true,
      url: undefined,
    });
  });
});
