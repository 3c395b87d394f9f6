import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { LocalApi } from '../../local/stack.js';
import { manifest, startTestApi } from '../support/api.js';
import { get, unavailableProblems } from './support/contract.js';
import { concreteRoutes } from './support/targets.js';

const BUDGET_TIMEOUT_MS = 300;
/**
 * The counter's own timeout, plus the identity round trip and scheduling slack on a loaded 2-core
 * machine. Still well below the 3 s of the slow counter below: a call that waited for it fails.
 */
const BOUND_MS = BUDGET_TIMEOUT_MS + 1700;

/** What a DynamoDB endpoint answers; the real SDK parses it, so the shapes follow the wire protocol. */
interface Answer {
  label: string;
  status: number;
  body: string;
  type?: string;
  delayMs?: number;
}

const ddbError = (type: string, message = 'x') => JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message });

const ANSWERS: Answer[] = [
  { label: '500 InternalServerError', status: 500, body: ddbError('InternalServerError'), type: 'InternalServerError' },
  { label: '400 ValidationException', status: 400, body: ddbError('ValidationException'), type: 'ValidationException' },
  { label: '400 ResourceNotFoundException', status: 400, body: ddbError('ResourceNotFoundException', 'Requested resource not found') },
  { label: '400 ProvisionedThroughputExceededException', status: 400, body: ddbError('ProvisionedThroughputExceededException') },
  { label: '400 ThrottlingException', status: 400, body: ddbError('ThrottlingException', 'Rate exceeded') },
  { label: '400 AccessDeniedException', status: 400, body: ddbError('AccessDeniedException') },
  { label: '503 without a body', status: 503, body: '' },
  { label: '200 that is not JSON', status: 200, body: '<html>gateway</html>' },
  { label: '200 without Attributes', status: 200, body: '{}' },
  { label: '200 with a count that is no number', status: 200, body: JSON.stringify({ Attributes: { calls: { N: 'abc' } } }) },
  { label: 'answering after 3 s (slow)', status: 200, body: JSON.stringify({ Attributes: { calls: { N: '1' } } }), delayMs: 3000 },
];

describe('the budget counter down, slow or answering errors: 503 rate_limit_unavailable, nothing served', () => {
  let current: Answer = ANSWERS[0] as Answer;
  let fake: Server;
  let blackhole: ReturnType<typeof createTcpServer>;
  const held: Socket[] = [];
  let api: LocalApi;
  let blackholeApi: LocalApi;
  let paths: string[];
  let requestsSeen = 0;

  beforeAll(async () => {
    // A tiny DynamoDB stand-in that answers whatever the current case says, for every request.
    fake = createHttpServer((req, res) => {
      requestsSeen += 1;
      req.resume();
      const answer = current;
      const send = () => {
        if (res.destroyed) return;
        const headers: Record<string, string> = { 'content-type': 'application/x-amz-json-1.0' };
        if (answer.type) headers['x-amzn-errortype'] = answer.type;
        res.writeHead(answer.status, headers);
        res.end(answer.body);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    // Accepts the connection and never says a word: a counter that hangs at the TCP level.
    blackhole = createTcpServer((s) => {
      held.push(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => blackhole.listen(0, '127.0.0.1', r));
    const endpoint = (s: { address(): unknown }) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    api = await startTestApi({ DYNAMODB_ENDPOINT: endpoint(fake), BUDGET_TIMEOUT_MS: String(BUDGET_TIMEOUT_MS) });
    blackholeApi = await startTestApi({ DYNAMODB_ENDPOINT: endpoint(blackhole), BUDGET_TIMEOUT_MS: String(BUDGET_TIMEOUT_MS) });
    paths = concreteRoutes(manifest)
      .filter((r) => r.route.read)
      .map((r) => r.path.replace(/^\/api\/v1/, ''));
  });

  afterAll(async () => {
    await api?.close();
    await blackholeApi?.close();
    for (const s of held) s.destroy();
    await new Promise<void>((r) => fake.close(() => r()));
    await new Promise<void>((r) => blackhole.close(() => r()));
  });

  const nothingServed = (text: string): string[] => {
    // Names and ids that any served read of this key would show.
    const secrets = [manifest.analyses.collected, manifest.analysisIds.collected, manifest.workspaces.acme as string, 'Acme Core'];
    return secrets.filter((s) => s && text.includes(s));
  };

  test.each(ANSWERS.map((a) => [a.label, a] as const))('counter answering %s: every read refused', async (_label, answer) => {
    current = answer;
    const before = requestsSeen;
    const replies = await Promise.all(paths.map((p) => get(api, p, manifest.keys.workspace)));
    const problems = replies.flatMap((r, i) =>
      [...unavailableProblems(r, 'rate_limit_unavailable', BOUND_MS), ...nothingServed(r.text)].map((p) => `${paths[i]}: ${p}`),
    );
    expect(problems).toEqual([]);
    // One attempt per call: a failing counter is not hammered with retries (an answer, even an error, is final).
    expect(requestsSeen - before).toBe(paths.length);
  });

  test('counter accepting connections and never answering: every read refused within the bound', async () => {
    const replies = await Promise.all(paths.map((p) => get(blackholeApi, p, manifest.keys.workspace)));
    const problems = replies.flatMap((r, i) =>
      [...unavailableProblems(r, 'rate_limit_unavailable', BOUND_MS), ...nothingServed(r.text)].map((p) => `${paths[i]}: ${p}`),
    );
    expect(problems).toEqual([]);
  });
});
