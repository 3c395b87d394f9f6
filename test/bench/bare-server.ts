/**
 * The baseline of the service's throughput figure (overhead.bench.ts): node:http and one pg Pool, nothing else. It answers
 * GET /api/v1/me and the figure reads (?window=...) with the same JSON as the service, by calling the
 * same read functions on the same store, but without the Lambda chain: no middleware, no key check
 * (the key's identity is read with the same statement, so /me costs the same SQL), no budget call, no
 * input validation, no logging. Env: BARE_DATABASE_URL (the read-only role), BARE_PORT.
 * Prints one JSON line {url, pid} when listening.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { fingerprint } from '#shared/keys.js';
import { me } from '#shared/reads/identity/me.js';
import { readsByFamily } from '#shared/reads/registry.js';
import type { ReadContext, ReadDef } from '#shared/reads/types.js';
import { BASE_PATH, matchPath } from '#shared/rest/paths.js';
import { lookupCaller } from '#shared/store/caller.js';
import { createDb } from '#shared/store/db.js';

const pool = new pg.Pool({ connectionString: process.env.BARE_DATABASE_URL, max: 8 });
const db = createDb(pool);
const budget = { limit: 1_000_000, remaining: 999_999, resetAfterSeconds: 0 };
const figures: readonly ReadDef[] = readsByFamily.figures;

const server = createServer((req, res) => {
  void (async () => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const secret = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const read = figures.find((r) => matchPath(`${BASE_PATH}${r.path}`, url.pathname));
    const params = read && matchPath(`${BASE_PATH}${read.path}`, url.pathname);
    const caller = await lookupCaller(db, fingerprint(secret), { lastUsedThrottleSeconds: 0 }, params?.analysis);
    const ctx = (analysis: { id: string; slug: string } | undefined): ReadContext => ({
      requestId: 'bare',
      caller,
      budget,
      db,
      analysis,
      now: new Date(),
      cursorSecret: 'bare-baseline-cursor-secret-not-used-here',
    });
    let body: unknown;
    if (url.pathname === `${BASE_PATH}/me`) {
      body = await me.run(ctx(undefined), {});
    } else {
      const analysis = caller.reach.named?.analysis;
      if (!read || !analysis) {
        res.writeHead(404).end();
        return;
      }
      const input = { ...params, window: url.searchParams.get('window') ?? undefined, limit: 50, offset: 0 };
      body = await read.run(ctx(analysis), input as never);
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  })().catch((err: Error) => {
    res.writeHead(500).end(err.message);
  });
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.BARE_PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pid: process.pid })}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
