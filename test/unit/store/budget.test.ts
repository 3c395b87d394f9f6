import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { parseConfig } from '#shared/config/service.js';
import { budgetEndpoint, createBudgetCounter, createDynamoClient, secondsToMinuteEnd } from '#shared/store/budget.js';
import { type LocalBudgetStore, startBudgetStore } from '../../../local/stores.js';
import { type ReceivedRequest, verifySigned } from '../../support/sigv4.js';
import { creds, lambdaCredentials, withLambdaCredentials } from './fixtures.js';

/**
 * The budget counter: the minute it counts in, the one request it makes and the connection it makes it on.
 *
 * Its UpdateItem is made by the AWS SDK with the credentials Lambda puts in the environment. What AWS
 * would refuse cannot be seen here, so the request is checked by a verifier written from the SigV4
 * specification (itself checked on AWS's published example, first below), as DynamoDB checks it.
 */

withLambdaCredentials();

const config = (env: Record<string, string>) =>
  parseConfig({ CURSOR_SECRET: 'x'.repeat(32), DATABASE_URL: 'postgres://unused@127.0.0.1/unused', AWS_REGION: 'eu-west-1', ...env });

describe('the SigV4 verifier the tests and the rehearsal use', () => {
  // AWS's SigV4 test suite, case post-vanilla.
  const vanilla: ReceivedRequest = {
    method: 'POST',
    path: '/',
    headers: {
      host: 'example.amazonaws.com',
      'x-amz-date': '20150830T123600Z',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b',
    },
    body: '',
  };
  const example = {
    accessKeyId: 'AKIDEXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    region: 'us-east-1',
    service: 'service',
  };

  test("accepts AWS's published example, refuses it altered", () => {
    expect(verifySigned(vanilla, example)).toBeNull();
    expect(verifySigned({ ...vanilla, body: 'x' }, example)).toBe('signature does not match');
    expect(verifySigned({ ...vanilla, path: '/other' }, example)).toBe('signature does not match');
    expect(verifySigned(vanilla, { ...example, secretAccessKey: 'other' })).toBe('signature does not match');
    expect(verifySigned(vanilla, { ...example, region: 'eu-west-1' })).toMatch(/not scoped/);
    expect(verifySigned(vanilla, example, new Date())).toBe('signed too far from now');
    expect(verifySigned(vanilla, { ...example, sessionToken: 't' })).toBe('the session token is not signed');
  });
});

test('reset counts whole seconds to the end of the UTC minute, 1..60', () => {
  expect(secondsToMinuteEnd(new Date('2026-01-01T00:00:00.000Z'))).toBe(60);
  expect(secondsToMinuteEnd(new Date('2026-01-01T00:00:59.001Z'))).toBe(1);
  expect(secondsToMinuteEnd(new Date('2026-01-01T00:00:30.500Z'))).toBe(30);
});

describe("the budget counter's request, as DynamoDB receives it", () => {
  const seen: ReceivedRequest[] = [];
  let server: Server;
  let endpoint: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify({ Attributes: { calls: { N: '3' } } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const at = new Date('2026-11-24T10:00:30Z');
  const spend = async (env: Record<string, string>) => {
    const cfg = config({ BUDGET_TABLE: 'geo-budget-dev', ...env });
    const client = createDynamoClient(cfg);
    try {
      const state = await createBudgetCounter(client, cfg.BUDGET_TABLE).consume('ws-1', 600, at);
      return { state, request: seen.at(-1)! };
    } finally {
      client.destroy();
    }
  };
  const signer = { ...creds, region: 'eu-west-1', service: 'dynamodb' };

  test("signed with the role's session token for the region's dynamodb: DynamoDB's check accepts it", async () => {
    const { state, request } = await spend({ AWS_ENDPOINT_URL_DYNAMODB: endpoint });
    expect(state).toEqual({ limit: 600, remaining: 597, resetAfterSeconds: 0 });
    expect(request.headers['x-amz-security-token']).toBe(creds.sessionToken);
    expect(verifySigned(request, signer, new Date())).toBeNull();
    // The SDK's retry step is off the stack (one attempt; the one resend is the counter's own): its
    // account of attempts is not sent. The SDK still names itself.
    expect(request.headers['amz-sdk-request']).toBeUndefined();
    expect(request.headers['user-agent']).toMatch(/aws-sdk-js\/3\.\d+.*api\/dynamodb/);
    // The check can fail: another body, region or secret does not verify.
    expect(verifySigned({ ...request, body: request.body.replace('600', '601') }, signer)).toBe('signature does not match');
    expect(verifySigned(request, { ...signer, region: 'us-east-1' })).toMatch(/not scoped/);
    expect(verifySigned(request, { ...signer, secretAccessKey: 'other' })).toBe('signature does not match');
  });

  test('an endpoint with a path: the request goes under that path and is signed for it', async () => {
    const { request } = await spend({ AWS_ENDPOINT_URL_DYNAMODB: `${endpoint}/dynamodb/eu` });
    // The operation's path (`/`) joined to the endpoint's, as the SDK does for every service.
    expect(request.path).toBe('/dynamodb/eu/');
    expect(verifySigned(request, signer)).toBeNull();
    expect(verifySigned({ ...request, path: '/' }, signer)).toBe('signature does not match');
  });

  test("DynamoDB's UpdateItem: one atomic conditional ADD on the workspace's item of the minute, with the call's token", async () => {
    const { request } = await spend({ AWS_ENDPOINT_URL_DYNAMODB: endpoint });
    expect(request.method).toBe('POST');
    expect(request.headers['x-amz-target']).toBe('DynamoDB_20120810.UpdateItem');
    expect(request.headers['content-type']).toBe('application/x-amz-json-1.0');
    const minute = Math.floor(at.getTime() / 60_000);
    const body = JSON.parse(request.body);
    expect(body).toEqual({
      TableName: 'geo-budget-dev',
      Key: { pk: { S: `budget#ws-1#${minute}` } },
      UpdateExpression: 'ADD #calls :one SET #expires = if_not_exists(#expires, :expires), #call = :call',
      ConditionExpression: '(attribute_not_exists(#calls) OR #calls < :limit) AND (attribute_not_exists(#call) OR #call <> :call)',
      ExpressionAttributeNames: {
        '#calls': 'calls',
        '#expires': 'expires_at',
        '#call': expect.stringMatching(/^call_[A-Za-z0-9_-]{8}_0$/),
      },
      ExpressionAttributeValues: {
        ':one': { N: '1' },
        ':limit': { N: '600' },
        ':expires': { N: String((minute + 2) * 60) },
        ':call': { N: '1' },
      },
      ReturnValues: 'UPDATED_NEW',
    });
  });

  test("calls in flight at once hold different token slots; a finished call's slot is reused with a new number", async () => {
    const client = createDynamoClient(config({ BUDGET_TABLE: 'geo-budget-dev', AWS_ENDPOINT_URL_DYNAMODB: endpoint }));
    const counter = createBudgetCounter(client, 'geo-budget-dev');
    const token = (r: ReceivedRequest) => {
      const body = JSON.parse(r.body);
      return [body.ExpressionAttributeNames['#call'], body.ExpressionAttributeValues[':call'].N];
    };
    try {
      const before = seen.length;
      await Promise.all([counter.consume('ws-1', 600, at), counter.consume('ws-1', 600, at)]);
      await counter.consume('ws-1', 600, at);
      const [a, b, c] = seen.slice(before).map(token);
      expect(a![0]).not.toBe(b![0]);
      expect(new Set([a![1], b![1], c![1]])).toEqual(new Set(['1', '2', '3']));
      expect([a![0], b![0]]).toContain(c![0]);
    } finally {
      client.destroy();
    }
  });

  test.each([
    [{}, 'https://dynamodb.eu-west-1.amazonaws.com'],
    [{ AWS_ENDPOINT_URL: 'http://all:1' }, 'http://all:1'],
    [{ AWS_ENDPOINT_URL: 'http://all:1', AWS_ENDPOINT_URL_DYNAMODB: 'http://ddb:2' }, 'http://ddb:2'],
    [{ AWS_ENDPOINT_URL_DYNAMODB: 'http://ddb:2', DYNAMODB_ENDPOINT: 'http://ours:3' }, 'http://ours:3'],
  ])('the endpoint of %j: %s', (env, expected) => {
    expect(budgetEndpoint(config(env))).toBe(expected);
  });

  test('without credentials in the environment and no local endpoint, the call is refused, not sent unsigned', async () => {
    lambdaCredentials(false);
    const before = seen.length;
    const client = createDynamoClient(config({ AWS_ENDPOINT_URL_DYNAMODB: endpoint }));
    try {
      await expect(createBudgetCounter(client, 'geo-budget').consume('ws-1', 600)).rejects.toMatchObject({
        code: 'rate_limit_unavailable',
        cause: { fault: 'budget', name: 'CredentialsProviderError', message: expect.stringMatching(/no AWS credentials/) },
      });
    } finally {
      client.destroy();
    }
    expect(seen.length).toBe(before);
  });

  test('a local endpoint (DYNAMODB_ENDPOINT) without credentials: signed with dummy ones, served', async () => {
    lambdaCredentials(false);
    const { state, request } = await spend({ DYNAMODB_ENDPOINT: endpoint });
    expect(state.remaining).toBe(597);
    expect(verifySigned(request, { accessKeyId: 'local', secretAccessKey: 'local', region: 'eu-west-1', service: 'dynamodb' })).toBeNull();
  });
});

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
      // It waited for the timeout rather than failing at once; not to the millisecond: a timer runs from
      // libuv's loop time, cached when its iteration began, which on a loaded machine can be a few
      // milliseconds before the clock this test reads.
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS / 2);
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

/**
 * A counter that applies a request and loses its answer: a real HTTP server in front of dynalite that
 * forwards every request and, when its rule says so, closes the connection instead of answering. On a
 * reused keep-alive connection the client sees it reset before any answer, as after a stale connection,
 * and sends the request once more: the call's token must make that count once.
 */
describe('the resend of a request whose answer was lost after the counter applied it', () => {
  let store: LocalBudgetStore;
  let front: Server;
  let frontEndpoint: string;
  const forwarded = { requests: 0, dropped: 0 };
  /** Whether to lose the answer to the request just forwarded (numbered from 1 since the front started). */
  let drop: (n: number) => boolean = () => false;
  beforeAll(async () => {
    store = await startBudgetStore();
    await store.createTable('geo-budget');
    const upstream = new URL(store.endpoint);
    front = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        forwarded.requests += 1;
        const lose = drop(forwarded.requests);
        const out = httpRequest(
          { hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
          (answer) => {
            let text = '';
            answer.on('data', (c: Buffer) => (text += c.toString('utf8')));
            answer.on('end', () => {
              // Applied by dynalite (its answer is here); the answer is lost on the way back.
              if (lose) {
                forwarded.dropped += 1;
                req.socket.destroy();
                return;
              }
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              res.end(text);
            });
          },
        );
        out.end(body);
      });
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    frontEndpoint = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    drop = () => false;
  });
  afterAll(async () => {
    front.closeAllConnections();
    await new Promise<void>((r) => front.close(() => r()));
    await store.close();
  });

  /** The count dynalite holds for the workspace's item of that minute, read past the front. */
  async function stored(workspace: string, at: Date): Promise<number | undefined> {
    const direct = new DynamoDBClient({
      endpoint: store.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    });
    try {
      const out = await direct.send(
        new GetItemCommand({ TableName: 'geo-budget', Key: { pk: { S: `budget#${workspace}#${Math.floor(at.getTime() / 60_000)}` } } }),
      );
      return out.Item?.calls?.N === undefined ? undefined : Number(out.Item.calls.N);
    } finally {
      direct.destroy();
    }
  }

  const counterAt = () => {
    const client = createDynamoClient(config({ DYNAMODB_ENDPOINT: frontEndpoint, BUDGET_TIMEOUT_MS: '5000', BUDGET_TABLE: 'geo-budget' }));
    return { client, counter: createBudgetCounter(client, 'geo-budget') };
  };

  /** Loses the answer to the next request only. */
  const dropNext = () => {
    const next = forwarded.requests + 1;
    drop = (n) => n === next;
  };

  test('20 calls served while every second answer is lost after it was applied: counted 20 (was 39)', async () => {
    const { client, counter } = counterAt();
    const at = new Date();
    const start = { ...forwarded };
    drop = (n) => (n - start.requests) % 2 === 0;
    const remaining: number[] = [];
    try {
      for (let i = 0; i < 20; i++) remaining.push((await counter.consume('ws-lost', 100, at)).remaining);
    } finally {
      client.destroy();
    }
    // Each call but the first lost the answer to its first attempt, applied, and sent it once more.
    expect(forwarded.dropped - start.dropped).toBeGreaterThanOrEqual(19);
    expect(await stored('ws-lost', at)).toBe(20);
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => 99 - i));
  });

  test('the call that reaches the ceiling, its answer lost: served with nothing remaining; the next one refused 429', async () => {
    const { client, counter } = counterAt();
    const at = new Date();
    try {
      // The first call opens a connection; the second reuses it, is applied, and its answer is lost.
      await expect(counter.consume('ws-ceiling', 2, at)).resolves.toMatchObject({ remaining: 1 });
      dropNext();
      await expect(counter.consume('ws-ceiling', 2, at)).resolves.toMatchObject({ remaining: 0 });
      expect(await stored('ws-ceiling', at)).toBe(2);
      await expect(counter.consume('ws-ceiling', 2, at)).rejects.toMatchObject({ code: 'rate_limited', status: 429 });
      expect(await stored('ws-ceiling', at)).toBe(2);
    } finally {
      client.destroy();
    }
  });

  test('a resend refused by the ceiling itself (the refusal of its first attempt lost): 429, not served', async () => {
    const { client, counter } = counterAt();
    const at = new Date();
    try {
      await expect(counter.consume('ws-full', 1, at)).resolves.toMatchObject({ remaining: 0 });
      const before = forwarded.dropped;
      dropNext();
      await expect(counter.consume('ws-full', 1, at)).rejects.toMatchObject({ code: 'rate_limited', status: 429 });
      expect(forwarded.dropped).toBe(before + 1);
      expect(await stored('ws-full', at)).toBe(1);
    } finally {
      client.destroy();
    }
  });

  test('without the token the same resend would count twice: the stand-in does apply the lost request', async () => {
    // The same UpdateItem without the token's condition, sent as the SDK sends it: applied twice.
    const { client } = counterAt();
    const at = new Date();
    const input = {
      TableName: 'geo-budget',
      Key: { pk: { S: `budget#ws-bare#${Math.floor(at.getTime() / 60_000)}` } },
      UpdateExpression: 'ADD #calls :one',
      ExpressionAttributeNames: { '#calls': 'calls' },
      ExpressionAttributeValues: { ':one': { N: '1' } },
      ReturnValues: 'UPDATED_NEW' as const,
    };
    try {
      await client.update(input);
      dropNext();
      await expect(client.update(input)).resolves.toMatchObject({ resent: true, attributes: { calls: { N: '3' } } });
      expect(await stored('ws-bare', at)).toBe(3);
    } finally {
      client.destroy();
    }
  });
});
