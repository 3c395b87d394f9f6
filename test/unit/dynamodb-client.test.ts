import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { parseConfig } from '#shared/config/service.js';
import { createBudgetCounter, createDynamoClient } from '#shared/store/budget.js';

/**
 * The budget counter's connection to DynamoDB (the AWS SDK's client, as the service configures it),
 * against small servers that misbehave the way networks do. (Error answers, slow and silent counters
 * behind the whole API: test/reliability/budget-faults.reliability.ts; bad answers: test/integration/budget-answers.test.ts.)
 */

const ok = JSON.stringify({ Attributes: { calls: { N: '1' } } });
const TIMEOUT_MS = 300;
let server: Server | undefined;
afterEach(
  () =>
    new Promise<void>((r) => {
      if (!server) return r();
      server.closeAllConnections();
      server.close(() => r());
    }),
);

/** A server whose handler sees each request with the number of requests its connection carried before. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse, onConnection: number) => void, timeoutMs = TIMEOUT_MS) {
  const seen = { requests: 0, connections: 0 };
  const perSocket = new WeakMap<Socket, number>();
  server = createServer((req, res) => {
    seen.requests += 1;
    const n = perSocket.get(req.socket) ?? 0;
    perSocket.set(req.socket, n + 1);
    req.resume();
    req.on('end', () => handler(req, res, n));
  });
  server.on('connection', () => (seen.connections += 1));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const client = createDynamoClient(
    parseConfig({
      CURSOR_SECRET: 'x'.repeat(32),
      DATABASE_URL: 'postgres://unused@127.0.0.1/unused',
      DYNAMODB_ENDPOINT: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      BUDGET_TIMEOUT_MS: String(timeoutMs),
    }),
  );
  return { seen, counter: createBudgetCounter(client, 'geo-budget'), client };
}

// The SDK loads parts of itself at its first call: under jest's module loader that alone can take
// longer than the short bound used here, so one call is made before the tests.
beforeAll(async () => {
  const { counter, client } = await serve(
    (_req, res) => res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(ok),
    5000,
  );
  try {
    await counter.consume('ws', 10);
  } finally {
    client.destroy();
    const warm = server as Server;
    server = undefined;
    await new Promise<void>((r) => warm.close(() => r()));
  }
});

/** How long a promise takes to settle, and how. */
async function timed<T>(work: Promise<T>): Promise<{ ms: number; outcome: T | unknown }> {
  const start = performance.now();
  const outcome = await work.catch((err: unknown) => err);
  return { ms: performance.now() - start, outcome };
}

describe('the budget counter over a keep-alive connection', () => {
  test('a connection the server dropped while idle: the call goes once more on a new one, and is served', async () => {
    // The second request on a connection finds it closed (as after a Lambda freeze): the server resets it.
    const { seen, counter, client } = await serve((req, res, onConnection) => {
      if (onConnection > 0) req.socket.destroy();
      else res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(ok);
    });
    try {
      await expect(counter.consume('ws', 10)).resolves.toMatchObject({ remaining: 9 });
      await expect(counter.consume('ws', 10)).resolves.toMatchObject({ remaining: 9 });
      // The SDK alone (maxAttempts 1) would have refused the second call: the resend is ours.
      expect(seen).toEqual({ requests: 3, connections: 2 });
    } finally {
      client.destroy();
    }
  });

  test('calls in a row share one connection', async () => {
    const { seen, counter, client } = await serve((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(ok),
    );
    try {
      for (let i = 0; i < 4; i++) await counter.consume('ws', 10);
      expect(seen).toEqual({ requests: 4, connections: 1 });
    } finally {
      client.destroy();
    }
  });

  test('a new connection reset before any answer is not retried: 503 rate_limit_unavailable, one request', async () => {
    const { seen, counter, client } = await serve((req) => req.socket.destroy());
    try {
      await expect(counter.consume('ws', 10)).rejects.toMatchObject({
        code: 'rate_limit_unavailable',
        status: 503,
        cause: { fault: 'budget', errno: 'ECONNRESET' },
      });
      expect(seen.requests).toBe(1);
    } finally {
      client.destroy();
    }
  });

  test('a reused connection cut after the answer began is not retried: the counter may have counted', async () => {
    const { seen, counter, client } = await serve((req, res, onConnection) => {
      if (onConnection === 0) {
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(ok);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': String(ok.length) });
      res.write(ok.slice(0, 5), () => req.socket.destroy());
    });
    try {
      await counter.consume('ws', 10);
      await expect(counter.consume('ws', 10)).rejects.toMatchObject({ code: 'rate_limit_unavailable' });
      expect(seen.requests).toBe(2);
    } finally {
      client.destroy();
    }
  });
});

describe('one attempt, bounded by BUDGET_TIMEOUT_MS', () => {
  // The bound plus scheduling slack on a loaded 2-core machine; the servers below would hold far longer.
  const BOUND_MS = TIMEOUT_MS + 700;

  test('a counter that accepts and never answers: refused within the bound, TimeoutError in the cause', async () => {
    const { seen, counter, client } = await serve(() => undefined);
    try {
      const { ms, outcome } = await timed(counter.consume('ws', 10));
      expect(outcome).toMatchObject({
        code: 'rate_limit_unavailable',
        cause: { fault: 'budget', name: 'TimeoutError', message: `no answer within ${TIMEOUT_MS} ms` },
      });
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
      expect(ms).toBeLessThan(BOUND_MS);
      expect(seen.requests).toBe(1);
    } finally {
      client.destroy();
    }
  });

  test('a counter that sends its headers and never the whole body: refused within the bound', async () => {
    const { counter, client } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': String(ok.length) });
      res.write(ok.slice(0, 5));
    });
    try {
      const { ms, outcome } = await timed(counter.consume('ws', 10));
      expect(outcome).toMatchObject({ code: 'rate_limit_unavailable', cause: { name: 'TimeoutError' } });
      expect(ms).toBeLessThan(BOUND_MS);
    } finally {
      client.destroy();
    }
  });

  test('an answer just inside the bound is served', async () => {
    const { counter, client } = await serve((_req, res) =>
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(ok), TIMEOUT_MS / 3),
    );
    try {
      await expect(counter.consume('ws', 10)).resolves.toMatchObject({ remaining: 9 });
    } finally {
      client.destroy();
    }
  });
});
