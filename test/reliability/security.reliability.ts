import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { KEY_LABELS } from '#shared/admin/demo.js';
import { fingerprint, newSecret } from '#shared/keys.js';
import type { LocalApi } from '../../local/stack.js';
import { manifest, startTestApi } from '../support/api.js';
import { captureOutput } from '../support/capture.js';
import { contractProblems, get, headerProblems } from './support/contract.js';
import { type PgProxy, startPgProxy } from './support/pg-proxy.js';
import { rawRequest } from './support/raw-http.js';
import { concreteRoutes, readOf } from './support/targets.js';

const adminUrl = () => process.env.TEST_ADMIN_URL as string;
const secrets = () => KEY_LABELS.map((l) => manifest.keys[l]);
/** Anything shaped like a whole secret, demo or not. */
const SECRET_SHAPE = /geo_live_[0-9A-Za-z]{32,}/;

/** Captures everything the process writes while `work` runs (the Powertools logger and EMF write to stdout). */

describe('the secret never appears in logs, errors or the database', () => {
  let api: LocalApi;
  beforeAll(async () => {
    api = await startTestApi({ LOG_LEVEL: 'DEBUG', PLAN_CEILINGS: JSON.stringify({ growth: 1_000_000, tiny: 1_000_000 }) });
  });
  afterAll(() => api.close());

  test('every route with every demo key (live, revoked, expired, no plan...), malformed and unknown keys, at LOG_LEVEL=DEBUG', async () => {
    const routes = concreteRoutes(manifest);
    const keys = [...secrets(), newSecret(), `${manifest.keys.workspace}x`, manifest.keys.workspace.slice(0, -1)];
    let requests = 0;
    const bodies: string[] = [];
    const output = await captureOutput(async () => {
      for (const key of keys) {
        const replies = await Promise.all(
          routes.map(({ route, path }) =>
            rawRequest(api.url, {
              method: route.method,
              target: `${path}${route.read ? '?limit=0' : ''}`,
              headers: [
                ['Authorization', `Bearer ${key}`],
                ['Content-Type', 'application/json'],
              ],
              ...(route.method === 'POST' ? { body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' } : {}),
            }),
          ),
        );
        const plain = await Promise.all(
          routes
            .filter((r) => r.route.read)
            .map(({ path }) => rawRequest(api.url, { target: path, headers: [['Authorization', `Bearer ${key}`]] })),
        );
        requests += replies.length + plain.length;
        for (const r of [...replies, ...plain]) bodies.push(r.text, JSON.stringify(r.headers));
      }
    });
    const lines = output.split('\n').filter((l) => l.trim());
    expect(lines.length).toBeGreaterThanOrEqual(requests);
    for (const secret of keys) {
      expect(output).not.toContain(secret);
      expect(output).not.toContain(secret.slice(9)); // the body without its geo_live_ head
    }
    expect(output).not.toMatch(SECRET_SHAPE);
    for (const b of bodies) expect(b).not.toMatch(SECRET_SHAPE);
    console.log(`secret scan: ${requests} requests, ${lines.length} log lines at DEBUG, ${keys.length} keys: no secret`);
  });

  test('no text column of any table holds a secret or a secret-shaped string', async () => {
    const db = new pg.Client({ connectionString: adminUrl() });
    await db.connect();
    try {
      const cols = (
        await db.query<{ t: string; c: string }>(
          `SELECT table_name AS t, column_name AS c FROM information_schema.columns
            WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED')`,
        )
      ).rows;
      expect(cols.length).toBeGreaterThan(10);
      const hits: string[] = [];
      for (const { t, c } of cols) {
        const row = (
          await db.query<{ n: string }>(
            `SELECT count(*) AS n FROM "${t}" WHERE "${c}"::text ~ 'geo_live_[0-9A-Za-z]{32,}' OR "${c}"::text = ANY($1)`,
            [secrets().map((s) => s.slice(9))],
          )
        ).rows[0];
        if (Number(row?.n) > 0) hits.push(`${t}.${c}`);
      }
      expect(hits).toEqual([]);
      // What is kept instead: the fingerprint and the 12-character visible prefix.
      const kept = (await db.query<{ fingerprint: string; prefix: string }>('SELECT fingerprint, prefix FROM api_keys')).rows;
      const wanted = new Set(secrets().map(fingerprint));
      expect(kept.filter((k) => wanted.has(k.fingerprint)).length).toBe(secrets().length);
      for (const k of kept) expect(k.prefix.length).toBe(12);
      console.log(`database scan: ${cols.length} text columns, no secret`);
    } finally {
      await db.end();
    }
  });
});

describe('key lookup by fingerprint: unknown, revoked and live keys cost the same database work', () => {
  let proxy: PgProxy;
  let api: LocalApi;
  beforeAll(async () => {
    const url = new URL(adminUrl());
    proxy = await startPgProxy({ host: url.hostname, port: Number(url.port), database: url.pathname.slice(1) });
    // Throttle 0: the live key does not stamp last_used_at, so all three run the very same statement.
    api = await startTestApi({ DATABASE_URL: proxy.url('geo_reader'), LAST_USED_THROTTLE_SECONDS: '0' });
  });
  afterAll(async () => {
    await api.close();
    await proxy.close();
  });

  test('same statements, round trips and bytes on the wire; the secret never reaches the database, its fingerprint does', async () => {
    // Warm the pool first, so no connection setup lands in one case and not another.
    await get(api, '/me', manifest.keys.workspace);
    const cases = {
      unknown: newSecret(),
      revoked: manifest.keys.revoked,
      expired: manifest.keys.expired,
      creator_removed: manifest.keys.creator_removed,
      live: manifest.keys.workspace,
    };
    const seen: Record<
      string,
      { status: number; query: number; parse: number; bind: number; execute: number; sync: number; bytes: number; statements: string[] }
    > = {};
    for (const [label, key] of Object.entries(cases)) {
      proxy.resetCounts();
      // /me: no data statement after identity, so the wire shows the caller lookup alone.
      const reply = await get(api, '/me', key);
      const c = proxy.counts;
      const wire = proxy.sent();
      expect(wire.includes(Buffer.from(key))).toBe(false);
      expect(wire.includes(Buffer.from(fingerprint(key)))).toBe(true);
      seen[label] = { status: reply.status, ...c, statements: [...c.statements] };
    }
    const shape = (s: (typeof seen)[string]) => ({
      query: s.query,
      parse: s.parse,
      bind: s.bind,
      execute: s.execute,
      sync: s.sync,
      bytes: s.bytes,
      statements: s.statements,
    });
    expect(seen.unknown?.status).toBe(401);
    expect(seen.revoked?.status).toBe(401);
    expect(seen.live?.status).toBe(200);
    for (const label of Object.keys(cases)) expect(shape(seen[label]!)).toEqual(shape(seen.unknown!));
    expect(seen.unknown!.sync + seen.unknown!.query).toBe(1);
    console.log(`identity wire work per call: ${JSON.stringify({ ...shape(seen.unknown!), statements: seen.unknown!.statements.length })}`);

    // The plan the server picks is the same for an unknown and a revoked fingerprint: one unique-index probe.
    // The wire carries a call of api_caller (migration 009); the lookup is the statement inside it.
    const db = new pg.Client({ connectionString: adminUrl() });
    await db.connect();
    try {
      expect(seen.unknown!.statements[0]).toMatch(/api_caller\(/);
      const body = (await db.query<{ src: string }>(`SELECT prosrc AS src FROM pg_proc WHERE proname = 'api_caller'`)).rows[0]!.src;
      const query = /BEGIN\s*(WITH[\s\S]*?);\s*IF NOT FOUND/.exec(body)?.[1];
      if (query === undefined) throw new Error('api_caller no longer starts with WITH ...; IF NOT FOUND: update this test');
      const sql = query
        .replace(/--[^\n]*/g, '')
        .replace(/\bINTO\b[\s\S]*?(?=\n\s*FROM k\b)/, '')
        .replaceAll('p_fingerprint', '$1::text')
        .replaceAll('p_throttle_seconds', '$2::integer')
        .replaceAll('p_analysis', 'NULL::text')
        .replaceAll('ref_id', 'NULL::uuid');
      const plan = async (fp: string) =>
        (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${sql}`, [fp, 0])).rows
          .map((r) => r['QUERY PLAN'])
          .join('\n')
          .replace(fp, '<fingerprint>');
      const unknownPlan = await plan(fingerprint(cases.unknown));
      expect(await plan(fingerprint(cases.revoked))).toBe(unknownPlan);
      expect(unknownPlan).toMatch(/Index Scan using api_keys_fingerprint_key on api_keys/);
      expect(unknownPlan).not.toMatch(/Seq Scan on api_keys/);
    } finally {
      await db.end();
    }
  });
});

describe('response headers, bodies on GET, /mcp body size', () => {
  let api: LocalApi;
  beforeAll(async () => {
    api = await startTestApi({ PLAN_CEILINGS: JSON.stringify({ growth: 1_000_000 }) });
  });
  afterAll(() => api.close());

  test('every route (/mcp and /openapi.json included), served or refused: nosniff, no-store, JSON, a request id, no server banner', async () => {
    const problems: string[] = [];
    for (const { route, path } of concreteRoutes(manifest)) {
      for (const key of [manifest.keys.workspace, undefined]) {
        const reply = await rawRequest(api.url, {
          method: route.method,
          target: path,
          headers: key ? [['Authorization', `Bearer ${key}`]] : [],
        });
        // REST routes owe the docs/contract.md#error-body envelope too; /mcp answers JSON-RPC and
        // /openapi.json the document, with the same headers.
        const found = route.read ? contractProblems(reply, route.read) : headerProblems(reply);
        for (const p of found) problems.push(`${route.method} ${path} ${key ? 'key' : 'no key'}: ${p}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('a body on a GET is ignored, the same way on every read', async () => {
    const bodies = ['{"analysis":"globex-core","limit":100000}', 'x'.repeat(64 * 1024), '\u0000\u0001'];
    for (const { path } of concreteRoutes(manifest).filter((r) => r.route.read)) {
      const plain = await get(api, path.replace(/^\/api\/v1/, ''), manifest.keys.workspace);
      for (const body of bodies) {
        const withBody = await rawRequest(api.url, {
          target: path,
          headers: [
            ['Authorization', `Bearer ${manifest.keys.workspace}`],
            ['Content-Type', 'application/json'],
          ],
          body,
        });
        expect(contractProblems(withBody, readOf(path))).toEqual([]);
        expect(withBody.status).toBe(plain.status);
        expect(withBody.text).not.toContain('globex-core');
      }
    }
  });

  test('/mcp refuses a body over 1 MB before reading it as JSON-RPC', async () => {
    const probe = await rawRequest(api.url, {
      method: 'POST',
      target: '/api/v1/mcp',
      headers: [
        ['Authorization', `Bearer ${manifest.keys.workspace}`],
        ['Content-Type', 'application/json'],
        ['Accept', 'application/json, text/event-stream'],
      ],
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    if (probe.status === 405) {
      // The MCP function is not wired into the local stack yet (POST /mcp still lands on a REST family).
      console.warn('SKIPPED: POST /api/v1/mcp is not served yet (405); the 1 MB refusal test runs once it is');
      return;
    }
    const padding = 'a'.repeat(1024 * 1024 + 1);
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { padding } });
    const reply = await rawRequest(api.url, {
      method: 'POST',
      target: '/api/v1/mcp',
      headers: [
        ['Authorization', `Bearer ${manifest.keys.workspace}`],
        ['Content-Type', 'application/json'],
        ['Accept', 'application/json, text/event-stream'],
      ],
      body: big,
    });
    expect(reply.status).toBe(413);
    expect(reply.header('x-request-id')).toBeDefined();
    expect(reply.text.length).toBeLessThan(2000);
  });
});
