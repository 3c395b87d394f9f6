import { describe, expect, test } from '@jest/globals';
import type { Context } from 'aws-lambda';
import { openapiHandler } from '#shared/rest/openapi-handler.js';
import { DOCS_CSP_HEADER, REFERENCE_PATH } from '#shared/rest/reference-page.js';
import { type LambdaHandler, toApiGatewayEvent } from '../../local/adapter.js';

/**
 * The deployed reference page: the openapi function (the gateway's $default route) serves the page its
 * bundle carries at /api/v1/docs, as HTML with its policy, and the index links it; without a page, the
 * path is one more 404 and the index names none. Through the real middy chain, with API Gateway events.
 */
const HTML = '<!doctype html><html><head><title>Reference</title></head><body>“é” &amp; ok</body></html>';
const document = JSON.stringify({ openapi: '3.1.0', info: { title: 'API', version: '1.2.3' }, paths: {} });
const context = { awsRequestId: 'test', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

const serving = openapiHandler({
  document,
  apiSwitch: { disabled: false, retryAfter: 60 },
  referencePage: { path: REFERENCE_PATH, html: () => HTML },
});
const without = openapiHandler({ document, apiSwitch: { disabled: false, retryAfter: 60 } });

const send = (handler: typeof serving, method: string, url: string) =>
  (handler as unknown as LambdaHandler)(toApiGatewayEvent({ method, url, rawHeaders: [], body: '' }).event, context);

describe('the reference page where the function carries one', () => {
  test('GET: 200, the page byte for byte, HTML with its security policy, the envelope’s headers', async () => {
    const res = await send(serving, 'GET', REFERENCE_PATH);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(HTML);
    expect(res.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': DOCS_CSP_HEADER,
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
      'x-request-id': expect.any(String),
    });
  });

  test('HEAD: the same headers, no body; OPTIONS 204 with Allow; POST 405 with Allow', async () => {
    const head = await send(serving, 'HEAD', REFERENCE_PATH);
    expect([head.statusCode, head.body ?? '', head.headers?.['content-type']]).toEqual([200, '', 'text/html; charset=utf-8']);
    const options = await send(serving, 'OPTIONS', REFERENCE_PATH);
    expect([options.statusCode, options.headers?.allow]).toEqual([204, 'GET, HEAD, OPTIONS']);
    const post = await send(serving, 'POST', REFERENCE_PATH);
    expect([post.statusCode, post.headers?.allow, post.headers?.['content-type']]).toEqual([
      405,
      'GET, HEAD, OPTIONS',
      'application/json; charset=utf-8',
    ]);
  });

  test('the index links it, beside the document and the MCP endpoint', async () => {
    const res = await send(serving, 'GET', '/api/v1/');
    expect(JSON.parse(res.body ?? '').links).toEqual({ openapi: '/api/v1/openapi.json', mcp: '/api/v1/mcp', reference: REFERENCE_PATH });
  });

  test('a refusal on that path is still the JSON envelope (the API switched off: 503)', async () => {
    const off = openapiHandler({
      document,
      apiSwitch: { disabled: true, retryAfter: 60 },
      referencePage: { path: REFERENCE_PATH, html: () => HTML },
    });
    const res = await send(off, 'GET', REFERENCE_PATH);
    expect(res.statusCode).toBe(503);
    expect(res.headers?.['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(res.body ?? '').error.code).toEqual(expect.any(String));
  });
});

describe('without a page', () => {
  test('the path is 404 with the envelope, and the index links no reference', async () => {
    const res = await send(without, 'GET', REFERENCE_PATH);
    expect(res.statusCode).toBe(404);
    expect(JSON.parse(res.body ?? '').error.code).toBe('not_found');
    const index = await send(without, 'GET', '/api/v1/');
    expect(Object.keys(JSON.parse(index.body ?? '').links).sort()).toEqual(['mcp', 'openapi']);
  });
});
