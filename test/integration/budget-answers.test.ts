import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { meSchema } from '#shared/reads/identity/me.js';
import type { LocalApi } from '../../local/stack.js';
import { call, expectError, expectServed, manifest, startTestApi } from '../support/api.js';
import { captureOutput } from '../support/capture.js';

/**
 * What the API does with each answer of the budget counter (a DynamoDB stand-in on loopback, reached by
 * the service's own SDK client): a call is served only on an integer count between 1 and the ceiling;
 * 429 only on DynamoDB's real ConditionalCheckFailedException; anything else is 503
 * rate_limit_unavailable with the cause in the log. And nothing of the function's credentials reaches
 * the log, at any level, even when the counter's error text echoes them.
 */

const credentials = {
  AWS_ACCESS_KEY_ID: 'ASIAECHOTEST00000042',
  AWS_SECRET_ACCESS_KEY: 'echo/secret+access=key0123456789abcdefGHIJ',
  AWS_SESSION_TOKEN: 'IQoJb3JpZ2luX2VjEEcaCWV1LXdlc3QtMSJHMEUCIQ+echo/session=token',
};

interface Seen {
  authorization: string;
  token: string;
  limit: number;
}

/** An answer of the stand-in, given what the request carried. */
type Answer = (seen: Seen) => { status: number; body: string; headers?: Record<string, string> };

const count =
  (n: string): Answer =>
  () => ({ status: 200, body: JSON.stringify({ Attributes: { calls: { N: n } } }) });
const ddbError =
  (status: number, type: string, message = 'x'): Answer =>
  () => ({ status, body: JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message }) });

const environment = Object.keys(credentials) as Array<keyof typeof credentials>;
const saved = Object.fromEntries(environment.map((n) => [n, process.env[n]]));

describe("the counter's answer decides: served on a count in 1..ceiling only", () => {
  let current: Answer = count('1');
  const seen: Seen[] = [];
  let fake: Server;
  let api: LocalApi;

  beforeAll(async () => {
    // The credentials Lambda would put in the environment: the SDK's environment provider reads them.
    Object.assign(process.env, credentials);
    fake = createServer((req: IncomingMessage, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString('utf8')));
      req.on('end', () => {
        const input = JSON.parse(text) as { ExpressionAttributeValues: { ':limit': { N: string } } };
        const request = {
          authorization: String(req.headers.authorization),
          token: String(req.headers['x-amz-security-token']),
          limit: Number(input.ExpressionAttributeValues[':limit'].N),
        };
        seen.push(request);
        const answer = current(request);
        res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0', ...answer.headers });
        res.end(answer.body);
      });
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    api = await startTestApi({
      DYNAMODB_ENDPOINT: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`,
      BUDGET_TIMEOUT_MS: '2000',
      LOG_LEVEL: 'DEBUG',
    });
  });

  afterAll(async () => {
    await api?.close();
    await new Promise<void>((r) => fake.close(() => r()));
    for (const n of environment) {
      if (saved[n] === undefined) delete process.env[n];
      else process.env[n] = saved[n];
    }
  });

  /** One call of /me under `answer`: the reply, the log lines written meanwhile, and the whole output. */
  async function callWith(answer: Answer) {
    current = answer;
    let reply: Awaited<ReturnType<typeof call>> | undefined;
    const output = await captureOutput(async () => {
      reply = await call(api, '/me', manifest.keys.workspace);
    });
    const lines = output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, any>);
    return { reply: reply!, lines, output, fault: lines.find((l) => l.message === 'fault') };
  }

  test('a count in 1..ceiling is served, remaining = ceiling - count; the request is signed with the session token', async () => {
    const { reply } = await callWith(count('3'));
    const me = expectServed(reply, meSchema);
    const limit = seen.at(-1)!.limit;
    expect(limit).toBeGreaterThan(3);
    expect(reply.headers.get('x-ratelimit-limit')).toBe(String(limit));
    expect(me.rate_limit.remaining).toBe(limit - 3);
    expect(seen.at(-1)!.token).toBe(credentials.AWS_SESSION_TOKEN);
    expect(seen.at(-1)!.authorization).toContain(`Credential=${credentials.AWS_ACCESS_KEY_ID}/`);
    // The ceiling itself is a good answer: the last call of the minute, nothing remaining.
    const last = await callWith(({ limit: l }) => count(String(l))({} as Seen));
    expect(expectServed(last.reply, meSchema).rate_limit.remaining).toBe(0);
  });

  const BAD: Array<[string, Answer, RegExp]> = [
    ['without Attributes', () => ({ status: 200, body: '{}' }), /without a count/],
    ['without a count', () => ({ status: 200, body: JSON.stringify({ Attributes: { expires_at: { N: '60' } } }) }), /without a count/],
    ['an empty count', count(''), /not an integer/],
    ['a null count', () => ({ status: 200, body: JSON.stringify({ Attributes: { calls: { NULL: true } } }) }), /not a number attribute/],
    ['a count that is a string', () => ({ status: 200, body: JSON.stringify({ Attributes: { calls: { S: '3' } } }) }), /not a number/],
    ['a count of 0', count('0'), /below 1/],
    ['a count of -1', count('-1'), /below 1/],
    ['a count of 1.5', count('1.5'), /not an integer/],
    ['a count of 1e1', count('1e1'), /not an integer/],
    ['a count above the ceiling', ({ limit }) => count(String(limit + 1))({} as Seen), /above the ceiling/],
    ['a count past any integer', count('1'.repeat(40)), /above the ceiling/],
    ['a 200 that is not JSON', () => ({ status: 200, body: '<html>gateway</html>' }), /HTTP 200/],
    ['a 500 typed ConditionalCheckFailedException', ddbError(500, 'ConditionalCheckFailedException'), /HTTP 500/],
    ['a 503 typed ConditionalCheckFailedException', ddbError(503, 'ConditionalCheckFailedException'), /HTTP 503/],
    ['a 400 ValidationException', ddbError(400, 'ValidationException'), /HTTP 400/],
  ];

  test.each(BAD)('200 or error with %s: 503 rate_limit_unavailable, the cause in the log', async (_label, answer, because) => {
    const { reply, fault } = await callWith(answer);
    expectError(reply, 503, 'rate_limit_unavailable');
    expect(reply.headers.get('retry-after')).toBe('1');
    expect(fault).toMatchObject({ level: 'WARN', code: 'rate_limit_unavailable', status: 503, cause: { fault: 'budget' } });
    expect(fault?.cause.message).toMatch(because);
  });

  test('a real 400 ConditionalCheckFailedException (the ceiling reached): 429 rate_limited, nothing logged as a fault', async () => {
    const { reply, fault } = await callWith(ddbError(400, 'ConditionalCheckFailedException', 'The conditional request failed'));
    expectError(reply, 429, 'rate_limited', { budget: true });
    expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(fault).toBeUndefined();
  });

  /** Error answers whose text echoes what the request carried, as AWS's signature-mismatch text does. */
  const ECHOES: Array<[string, Answer]> = [
    [
      '403 InvalidSignatureException quoting the canonical request',
      ({ authorization, token }) =>
        ddbError(
          403,
          'InvalidSignatureException',
          `The request signature we calculated does not match the signature you provided. The Canonical String for this request should have been 'POST\n/\n\nhost:127.0.0.1\nx-amz-security-token:${token}\n' Authorization: ${authorization}`,
        )({} as Seen),
    ],
    [
      '400 UnrecognizedClientException with the key id as its request id',
      ({ token }) => ({
        status: 400,
        headers: { 'x-amzn-requestid': credentials.AWS_ACCESS_KEY_ID },
        body: JSON.stringify({
          __type: 'UnrecognizedClientException',
          Message: `The security token included in the request is invalid: ${token}`,
        }),
      }),
    ],
    [
      '500 whose error type is the session token',
      ({ token, authorization }) => ({
        status: 500,
        headers: { 'x-amzn-errortype': token },
        body: JSON.stringify({ __type: token, message: authorization }),
      }),
    ],
    ['200 that is not JSON and quotes the token', ({ token }) => ({ status: 200, body: `<html>${token}</html>` })],
    [
      '200 with a bad count and the token beside it',
      ({ token, authorization }) => ({
        status: 200,
        body: JSON.stringify({ Attributes: { calls: { S: token }, auth: { S: authorization } } }),
      }),
    ],
  ];

  test.each(ECHOES)('counter answering %s: 503, and no credential, signature or token in any log line at DEBUG', async (_label, answer) => {
    const { reply, output, fault } = await callWith(answer);
    expectError(reply, 503, 'rate_limit_unavailable');
    const request = seen.at(-1)!;
    const signature = /Signature=([0-9a-f]{64})/.exec(request.authorization)?.[1];
    // The stand-in did receive (and echo) the credentials: the test below could fail.
    expect(request.token).toBe(credentials.AWS_SESSION_TOKEN);
    expect(signature).toBeDefined();
    // The fault line is there, with what can be logged safely.
    expect(fault).toMatchObject({ level: 'WARN', code: 'rate_limit_unavailable', cause: { fault: 'budget', message: expect.any(String) } });
    expect(output).toContain('"message":"request"');
    const leaks = [
      credentials.AWS_ACCESS_KEY_ID,
      credentials.AWS_SECRET_ACCESS_KEY,
      credentials.AWS_SESSION_TOKEN,
      request.authorization,
      signature as string,
      // JSON-escaped forms of the values with characters JSON escapes.
      JSON.stringify(credentials.AWS_SESSION_TOKEN).slice(1, -1),
      'x-amz-security-token:',
    ].filter((secret) => output.includes(secret));
    expect(leaks).toEqual([]);
  });
});
