import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { Signer } from '@aws-sdk/rds-signer';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { rdsAuthToken, signedHeaders } from '#shared/aws/sigv4.js';
import { parseConfig } from '#shared/config/service.js';
import { budgetEndpoint, createBudgetCounter, createDynamoClient } from '#shared/store/budget.js';
import { verifyIamToken } from '../deploy/support/iam-token.js';
import { type ReceivedRequest, verifySigned } from '../support/sigv4.js';

/**
 * The budget counter speaks DynamoDB's wire protocol itself (shared/aws). What AWS would refuse cannot be
 * seen here, so the request is checked against the references: AWS's published SigV4 example, the AWS
 * SDK's own signer, and the AWS SDK's own UpdateItem request for the same input.
 */

const creds = {
  accessKeyId: 'ASIAUNITTEST00000001',
  secretAccessKey: 'c2VjcmV0LWtleS1mb3ItdGhlLXVuaXQtdGVzdA',
  sessionToken: 'FwoGZXIvYXdzEJr//////////session+token/with=padding',
};

describe('SigV4', () => {
  test("AWS's test suite, post-vanilla: the same signature", () => {
    const headers = signedHeaders({
      method: 'POST',
      host: 'example.amazonaws.com',
      headers: {},
      body: '',
      region: 'us-east-1',
      service: 'service',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
      now: new Date('2015-08-30T12:36:00Z'),
    });
    expect(headers['x-amz-date']).toBe('20150830T123600Z');
    expect(headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b',
    );
  });
});

describe('the RDS IAM token (the password of a login through RDS Proxy)', () => {
  const at = new Date('2026-11-24T10:00:30Z');
  const input = {
    hostname: 'geo-proxy.proxy-abc.eu-west-1.rds.amazonaws.com',
    port: 5432,
    user: 'geo_reader',
    region: 'eu-west-1',
    credentials: creds,
    now: at,
  };
  const parts = (token: string) => {
    const [host, query] = token.split('/?');
    return { host, params: [...new URLSearchParams(query).entries()].sort(([a], [b]) => (a < b ? -1 : 1)) };
  };

  test('what @aws-sdk/rds-signer makes at the same instant, parameter for parameter', async () => {
    jest.useFakeTimers({
      now: at,
      doNotFake: [
        'nextTick',
        'setImmediate',
        'clearImmediate',
        'setTimeout',
        'clearTimeout',
        'setInterval',
        'clearInterval',
        'queueMicrotask',
        'hrtime',
        'performance',
      ],
    });
    try {
      const sdk = await new Signer({
        hostname: input.hostname,
        port: input.port,
        username: input.user,
        region: input.region,
        credentials: creds,
      }).getAuthToken();
      expect(parts(rdsAuthToken(input))).toEqual(parts(sdk));
    } finally {
      jest.useRealTimers();
    }
  });

  test("accepted by the rehearsal's RDS check (written from the SigV4 specification); refused when altered", () => {
    const want = {
      hostPort: `${input.hostname}:5432`,
      user: 'geo_reader',
      region: 'eu-west-1',
      ...creds,
      now: new Date(at.getTime() + 60_000),
    };
    expect(verifyIamToken(rdsAuthToken(input), want)).toBeNull();
    expect(verifyIamToken(rdsAuthToken({ ...input, user: 'postgres' }), want)).toMatch(/DBUser/);
    expect(verifyIamToken(rdsAuthToken(input).replace('DBUser=geo_reader', 'DBUser=geo_reader&X=1'), want)).toBe(
      'signature does not match',
    );
    expect(verifyIamToken(rdsAuthToken(input), { ...want, now: new Date(at.getTime() + 16 * 60_000) })).toMatch(/expired/);
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
        seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers as Record<string, string>, body });
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify({ Attributes: { calls: { N: '3' } } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const ours = async (env: Record<string, string>) => {
    const cfg = parseConfig({
      CURSOR_SECRET: 'x'.repeat(32),
      DATABASE_URL: 'postgres://unused@127.0.0.1/unused',
      AWS_REGION: 'eu-west-1',
      BUDGET_TABLE: 'geo-budget-dev',
      ...env,
    });
    const client = createDynamoClient(cfg);
    try {
      const state = await createBudgetCounter(client, cfg.BUDGET_TABLE).consume('ws-1', 600, new Date('2026-11-24T10:00:30Z'));
      return { state, request: seen.at(-1)! };
    } finally {
      client.destroy();
    }
  };
  const lambdaEnv = () => ({
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_ACCESS_KEY_ID: creds.accessKeyId,
    AWS_SECRET_ACCESS_KEY: creds.secretAccessKey,
    AWS_SESSION_TOKEN: creds.sessionToken,
  });

  test("signed as the AWS SDK's signer signs it, with the role's session token, for the region's dynamodb", async () => {
    const { state, request } = await ours(lambdaEnv());
    expect(state).toEqual({ limit: 600, remaining: 597, resetAfterSeconds: 0 });
    expect(request.headers['x-amz-security-token']).toBe(creds.sessionToken);
    expect(await verifySigned(request, { ...creds, region: 'eu-west-1', service: 'dynamodb' })).toBeNull();
    // The check can fail: another body, region or secret does not verify.
    expect(
      await verifySigned({ ...request, body: request.body.replace('600', '601') }, { ...creds, region: 'eu-west-1', service: 'dynamodb' }),
    ).toMatch(/does not match/);
    expect(await verifySigned(request, { ...creds, region: 'us-east-1', service: 'dynamodb' })).toMatch(/not scoped/);
    expect(await verifySigned(request, { ...creds, secretAccessKey: 'other', region: 'eu-west-1', service: 'dynamodb' })).toMatch(
      /does not match/,
    );
  });

  test("the same operation, target, content type and JSON as the AWS SDK's UpdateItem for the same input", async () => {
    const { request } = await ours(lambdaEnv());
    const input = JSON.parse(request.body) as Record<string, unknown>;
    const sdk = new DynamoDBClient({ endpoint, region: 'eu-west-1', credentials: creds, maxAttempts: 1 });
    await sdk.send(new UpdateItemCommand(input as never));
    sdk.destroy();
    const reference = seen.at(-1)!;
    expect(request.method).toBe(reference.method);
    expect(request.path).toBe(reference.path);
    expect(request.headers['x-amz-target']).toBe(reference.headers['x-amz-target']);
    expect(request.headers['content-type']).toBe(reference.headers['content-type']);
    expect(JSON.parse(request.body)).toEqual(JSON.parse(reference.body));
    expect(input).toMatchObject({
      TableName: 'geo-budget-dev',
      Key: { pk: { S: `budget#ws-1#${Math.floor(Date.parse('2026-11-24T10:00:30Z') / 60_000)}` } },
      ConditionExpression: 'attribute_not_exists(#calls) OR #calls < :limit',
      ExpressionAttributeValues: { ':limit': { N: '600' } },
    });
  });

  test.each([
    [{}, 'https://dynamodb.eu-west-1.amazonaws.com'],
    [{ AWS_ENDPOINT_URL: 'http://all:1' }, 'http://all:1'],
    [{ AWS_ENDPOINT_URL: 'http://all:1', AWS_ENDPOINT_URL_DYNAMODB: 'http://ddb:2' }, 'http://ddb:2'],
    [{ AWS_ENDPOINT_URL_DYNAMODB: 'http://ddb:2', DYNAMODB_ENDPOINT: 'http://ours:3' }, 'http://ours:3'],
  ])('the endpoint of %j: %s', (env, expected) => {
    expect(
      budgetEndpoint(
        parseConfig({ CURSOR_SECRET: 'x'.repeat(32), DATABASE_URL: 'postgres://unused@127.0.0.1/unused', AWS_REGION: 'eu-west-1', ...env }),
      ),
    ).toBe(expected);
  });

  test('without credentials in the environment and no local endpoint, the call is refused, not sent unsigned', async () => {
    const before = seen.length;
    const cfg = parseConfig({
      CURSOR_SECRET: 'x'.repeat(32),
      DATABASE_URL: 'postgres://unused@127.0.0.1/unused',
      AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    });
    const client = createDynamoClient(cfg);
    await expect(createBudgetCounter(client, 'geo-budget').consume('ws-1', 600)).rejects.toMatchObject({ code: 'rate_limit_unavailable' });
    client.destroy();
    expect(seen.length).toBe(before);
  });
});
