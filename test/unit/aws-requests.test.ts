import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import type pg from 'pg';
import { parseConfig } from '#shared/config/service.js';
import { budgetEndpoint, createBudgetCounter, createDynamoClient } from '#shared/store/budget.js';
import { createPool } from '#shared/store/db.js';
import { classifyStoreError } from '#shared/store/faults.js';
import { verifyIamToken } from '../deploy/support/iam-token.js';
import { type ReceivedRequest, verifySigned } from '../support/sigv4.js';

/**
 * The two AWS requests the functions make, made by the AWS SDK with the credentials Lambda puts in the
 * environment: the budget counter's UpdateItem and the RDS IAM token. What AWS would refuse cannot be
 * seen here, so each is checked by a verifier written from the SigV4 specification (itself checked on
 * AWS's published example), as DynamoDB and RDS check them.
 */

const creds = {
  accessKeyId: 'ASIAUNITTEST00000001',
  secretAccessKey: 'c2VjcmV0LWtleS1mb3ItdGhlLXVuaXQtdGVzdA',
  sessionToken: 'FwoGZXIvYXdzEJr//////////session+token/with=padding',
};
const ENV_NAMES = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'] as const;
const saved = Object.fromEntries(ENV_NAMES.map((n) => [n, process.env[n]]));
/** The environment Lambda gives the function: its role's credentials, or none. */
function lambdaCredentials(on: boolean): void {
  const values = {
    AWS_ACCESS_KEY_ID: creds.accessKeyId,
    AWS_SECRET_ACCESS_KEY: creds.secretAccessKey,
    AWS_SESSION_TOKEN: creds.sessionToken,
  };
  for (const n of ENV_NAMES) {
    if (on) process.env[n] = values[n];
    else delete process.env[n];
  }
}
beforeEach(() => lambdaCredentials(true));
afterAll(() => {
  for (const n of ENV_NAMES) {
    if (saved[n] === undefined) delete process.env[n];
    else process.env[n] = saved[n];
  }
});

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
    // The SDK's own account of its attempts: one, of at most one.
    expect(request.headers['amz-sdk-request']).toBe('attempt=1; max=1');
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

  test("DynamoDB's UpdateItem: one atomic conditional ADD on the workspace's item of the minute", async () => {
    const { request } = await spend({ AWS_ENDPOINT_URL_DYNAMODB: endpoint });
    expect(request.method).toBe('POST');
    expect(request.headers['x-amz-target']).toBe('DynamoDB_20120810.UpdateItem');
    expect(request.headers['content-type']).toBe('application/x-amz-json-1.0');
    const minute = Math.floor(at.getTime() / 60_000);
    expect(JSON.parse(request.body)).toEqual({
      TableName: 'geo-budget-dev',
      Key: { pk: { S: `budget#ws-1#${minute}` } },
      UpdateExpression: 'ADD #calls :one SET #expires = if_not_exists(#expires, :expires)',
      ConditionExpression: 'attribute_not_exists(#calls) OR #calls < :limit',
      ExpressionAttributeNames: { '#calls': 'calls', '#expires': 'expires_at' },
      ExpressionAttributeValues: { ':one': { N: '1' }, ':limit': { N: '600' }, ':expires': { N: String((minute + 2) * 60) } },
      ReturnValues: 'UPDATED_NEW',
    });
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

describe('the RDS IAM token (the password of a login through RDS Proxy)', () => {
  const iamConfig = () =>
    parseConfig({
      CURSOR_SECRET: 'x'.repeat(32),
      DB_HOST: 'geo-proxy.proxy-abc.eu-west-1.rds.amazonaws.com',
      DB_IAM_AUTH: 'true',
      AWS_REGION: 'eu-west-1',
    });
  let pool: pg.Pool | undefined;
  afterEach(async () => {
    await pool?.end();
    pool = undefined;
  });
  const password = (p: pg.Pool) => (p.options.password as () => Promise<string>)();
  const want = { hostPort: 'geo-proxy.proxy-abc.eu-west-1.rds.amazonaws.com:5432', user: 'geo_reader', region: 'eu-west-1', ...creds };

  test("made from the role's credentials in the environment for the proxy's endpoint and user: RDS's check accepts it", async () => {
    pool = createPool(iamConfig());
    const token = await password(pool);
    expect(verifyIamToken(token, want)).toBeNull();
    expect(verifyIamToken(token, { ...want, secretAccessKey: 'other' })).toBe('signature does not match');
    expect(verifyIamToken(token, { ...want, user: 'postgres' })).toMatch(/DBUser/);
  });

  test('a fresh token for each login: the credentials are read again from the environment', async () => {
    pool = createPool(iamConfig());
    const first = await password(pool);
    process.env.AWS_SESSION_TOKEN = 'rotated-session-token';
    const second = await password(pool);
    const sessionOf = (t: string) => new URLSearchParams(t.slice(t.indexOf('/?') + 2)).get('X-Amz-Security-Token');
    expect(sessionOf(first)).toBe(creds.sessionToken);
    expect(sessionOf(second)).toBe('rotated-session-token');
    expect(verifyIamToken(second, { ...want, sessionToken: 'rotated-session-token' })).toBeNull();
  });

  test('without credentials in the environment no token is made: the login fails naming what is missing, nothing of the SDK', async () => {
    lambdaCredentials(false);
    pool = createPool(iamConfig());
    await expect(password(pool)).rejects.toThrow(
      /^DB_IAM_AUTH: no AWS credentials in the environment \(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY\)$/,
    );
    // An uncoded failure at login is a configuration fault: 500 internal_error (docs/errors.md#faults).
    expect(classifyStoreError(await password(pool).catch((e) => e), 'connect')).toBe('configuration');
  });
});
