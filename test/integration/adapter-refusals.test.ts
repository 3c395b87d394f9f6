import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { LocalApi } from '../../local/stack.js';
import { parseResponse, type RawReply, rawRequest } from '../reliability/support/raw-http.js';
import { manifest, startTestApi } from '../support/api.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let api: LocalApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** Bytes written as they are (not even a well-formed request line), and the whole answer read back. */
function rawBytes(bytes: string | Buffer): Promise<RawReply> {
  const url = new URL(api.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err) => (chunks.length ? undefined : reject(err)));
    socket.on('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks), 0));
      } catch (err) {
        reject(err);
      }
    });
  });
}

/**
 * The adapter's own refusals (API Gateway's part): the docs/contract.md#error-body envelope with a request
 * id, no budget spent.
 */
function expectGatewayRefusal(reply: RawReply, status: number, code: string): void {
  expect({ status: reply.status, code: reply.body?.error?.code }).toEqual({ status, code });
  expect(Object.keys(reply.body)).toEqual(['error']);
  expect(Object.keys(reply.body.error).sort()).toEqual(['code', 'message', 'request_id']);
  expect(reply.header('x-request-id')).toMatch(UUID);
  expect(reply.body.error.request_id).toBe(reply.header('x-request-id'));
  expect(reply.header('content-type')).toBe('application/json; charset=utf-8');
  expect(reply.header('cache-control')).toBe('no-store');
  expect(reply.header('x-content-type-options')).toBe('nosniff');
  expect(reply.header('x-ratelimit-limit')).toBeUndefined();
}

describe("the local adapter's own refusals carry X-Request-Id and the envelope", () => {
  test('a body over 6 MB → 413 payload_too_large', async () => {
    const reply = await rawRequest(api.url, {
      method: 'POST',
      target: '/api/v1/mcp',
      headers: [
        ['Authorization', `Bearer ${manifest.keys.workspace}`],
        ['Content-Type', 'application/json'],
      ],
      body: Buffer.alloc(6 * 1024 * 1024 + 1, 'a'),
    });
    expectGatewayRefusal(reply, 413, 'payload_too_large');
  });

  test('headers over the 16 KB limit of the HTTP parser → 431 headers_too_large', async () => {
    const reply = await rawRequest(api.url, { target: '/api/v1/me', headers: [['X-Padding', 'a'.repeat(20 * 1024)]] });
    expectGatewayRefusal(reply, 431, 'headers_too_large');
  });

  test.each([
    ['a request line that is not HTTP', 'HELLO\r\n\r\n'],
    ['a header line without a colon', 'GET /api/v1/me HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n'],
    ['a space before the colon', 'GET /api/v1/me HTTP/1.1\r\nHost : x\r\n\r\n'],
    ['a bad Content-Length', 'POST /api/v1/mcp HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'],
    [
      'Content-Length and chunked together',
      'POST /api/v1/mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    ['a NUL in a header value', 'GET /api/v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\u0000b\r\n\r\n'],
    ['an HTTP/1.1 request without Host', 'GET /api/v1/me HTTP/1.1\r\nConnection: close\r\n\r\n'],
    ['two Host headers', 'GET /api/v1/me HTTP/1.1\r\nHost: x\r\nHost: y\r\nConnection: close\r\n\r\n'],
    ['CONNECT, which asks for a tunnel', 'CONNECT /api/v1/me HTTP/1.1\r\nHost: x\r\n\r\n'],
  ])('%s → 400 malformed_request', async (_name, bytes) => {
    expectGatewayRefusal(await rawBytes(bytes), 400, 'malformed_request');
  });

  test('an HTTP/1.0 request needs no Host: served (here, 401 for want of a key)', async () => {
    const reply = await rawBytes('GET /api/v1/me HTTP/1.0\r\n\r\n');
    expect({ status: reply.status, code: reply.body?.error?.code }).toEqual({ status: 401, code: 'unauthorized' });
  });

  test('the server keeps serving after each of them', async () => {
    const reply = await rawRequest(api.url, { target: '/api/v1/me', headers: [['Authorization', `Bearer ${manifest.keys.workspace}`]] });
    expect(reply.status).toBe(200);
  });
});
