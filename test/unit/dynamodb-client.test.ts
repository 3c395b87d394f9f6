import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, test } from '@jest/globals';
import { createDynamoDb } from '#shared/aws/dynamodb.js';
import { createBudgetCounter } from '#shared/store/budget.js';

/**
 * The budget counter's connection to DynamoDB, against small servers that misbehave the way networks do.
 * (Error answers, slow and silent counters: test/reliability/budget-faults.reliability.ts.)
 */

const ok = JSON.stringify({ Attributes: { calls: { N: '1' } } });
let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** A server whose handler sees each request with the number of requests its connection carried before. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse, onConnection: number) => void) {
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
  const client = createDynamoDb({
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    region: 'us-east-1',
    timeoutMs: 1000,
    credentials: () => ({ accessKeyId: 'local', secretAccessKey: 'local' }),
  });
  return { seen, counter: createBudgetCounter(client, 'geo-budget'), client };
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
      expect(seen).toEqual({ requests: 3, connections: 2 });
    } finally {
      client.destroy();
    }
  });

  test('a new connection reset before any answer is not retried: 503 rate_limit_unavailable, one request', async () => {
    const { seen, counter, client } = await serve((req) => req.socket.destroy());
    try {
      await expect(counter.consume('ws', 10)).rejects.toMatchObject({ code: 'rate_limit_unavailable', status: 503 });
      expect(seen.requests).toBe(1);
    } finally {
      client.destroy();
    }
  });

  test('an answer far larger than any DynamoDB answer is not buffered: refused', async () => {
    const { counter, client } = await serve((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(`{"x":"${'y'.repeat(200_000)}"}`),
    );
    try {
      await expect(counter.consume('ws', 10)).rejects.toMatchObject({
        code: 'rate_limit_unavailable',
        cause: { message: expect.stringMatching(/not DynamoDB's/) },
      });
    } finally {
      client.destroy();
    }
  });
});
