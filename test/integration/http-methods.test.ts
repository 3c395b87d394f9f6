import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { LocalApi } from '../../local/stack.js';
import { manifest, startTestApi } from '../support/api.js';

/**
 * docs/contract.md#methods: HEAD answers as GET without the body, OPTIONS answers 204 with Allow, and
 * the base URL answers a small index instead of 404.
 */

let api: LocalApi;
beforeAll(async () => {
  // The index links the reference page where the stack serves one, as npm start does at /docs.
  api = await startTestApi();
});
afterAll(() => api.close());

const key = () => manifest.keys.workspace;

async function send(method: string, path: string, withKey = true): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(`${api.baseUrl}${path}`, { method, headers: withKey ? { authorization: `Bearer ${key()}` } : {} });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** The headers a HEAD must share with its GET: all but the per-call ones (request id, budget left, timing). */
function stableHeaders(headers: Headers): Record<string, string> {
  const perCall = new Set([
    'x-request-id',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'server-timing',
    'date',
    'content-length',
    'connection',
    'keep-alive',
    // transport framing of the local server, not a header of the API
    'transfer-encoding',
  ]);
  return Object.fromEntries([...headers].filter(([name]) => !perCall.has(name)));
}

describe('HEAD answers as GET, without a body', () => {
  test.each([
    ['a read', () => `/analyses/${manifest.analyses.collected}/prompts`, true],
    ['the document', () => '/openapi.json', false],
    ['the index', () => '/', false],
  ])('%s: same status and headers, Content-Length of the GET body, no body', async (_name, path, withKey) => {
    const get = await send('GET', path(), withKey);
    const head = await send('HEAD', path(), withKey);
    expect(get.status).toBe(200);
    expect(get.bytes.length).toBeGreaterThan(0);
    expect(head.status).toBe(200);
    expect(head.bytes.length).toBe(0);
    expect(head.headers.get('content-length')).toBe(String(get.bytes.length));
    expect(stableHeaders(head.headers)).toEqual(stableHeaders(get.headers));
  });

  test('a refusal keeps its status and headers: 401 with WWW-Authenticate, no body', async () => {
    const head = await send('HEAD', '/me', false);
    expect(head.status).toBe(401);
    expect(head.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(head.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(head.bytes.length).toBe(0);
  });

  test('a HEAD of a read is a call: it spends the budget as its GET does', async () => {
    const before = Number((await send('HEAD', '/me')).headers.get('x-ratelimit-remaining'));
    const after = Number((await send('HEAD', '/me')).headers.get('x-ratelimit-remaining'));
    expect(after).toBe(before - 1);
  });
});

describe('OPTIONS answers 204 with Allow, before any key', () => {
  test.each([
    ['/me', 'GET, HEAD, OPTIONS'],
    [`/analyses/${'some-analysis'}/metrics`, 'GET, HEAD, OPTIONS'],
    ['/openapi.json', 'GET, HEAD, OPTIONS'],
    ['/mcp', 'POST, OPTIONS'],
    ['/', 'GET, HEAD, OPTIONS'],
  ])('%s → Allow: %s', async (path, allow) => {
    const reply = await send('OPTIONS', path, false);
    expect(reply.status).toBe(204);
    expect(reply.headers.get('allow')).toBe(allow);
    expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.headers.get('x-ratelimit-limit')).toBeNull();
    expect(reply.bytes.length).toBe(0);
    // No content, so no media type.
    expect(reply.headers.get('content-type')).toBeNull();
  });

  test('a path outside the contract is still 404', async () => {
    const reply = await send('OPTIONS', '/nothing-here', false);
    expect(reply.status).toBe(404);
    expect(JSON.parse(reply.bytes.toString()).error.code).toBe('not_found');
  });
});

describe('the base URL answers an index', () => {
  test.each(['', '/'])('GET /api/v1%s: name, version and links that answer', async (suffix) => {
    const res = await fetch(`${api.baseUrl}${suffix}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const index = await res.json();
    expect(index).toEqual({
      name: expect.any(String),
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      links: { openapi: '/api/v1/openapi.json', mcp: '/api/v1/mcp' },
    });
    const document = await fetch(`${api.url}${index.links.openapi}`);
    expect(document.status).toBe(200);
    expect((await document.json()).info.version).toBe(index.version);
  });

  test('another method on the index is 405 with Allow', async () => {
    const reply = await send('POST', '/', false);
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});
