import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { mcpHandler } from '#shared/mcp/handler.js';
import { toApiGatewayEvent } from '../../local/adapter.js';
import type { LocalApi } from '../../local/stack.js';
import { manifest, startTestApi } from '../support/api.js';

/**
 * A Host header that makes no URL (a space, a lone bracket, a port out of range, user information): 400
 * malformed_request in the error envelope, never a 500, on the local adapter and on the deployed path
 * (an API Gateway event whose domain name makes no URL, handed to the MCP function).
 */
const BAD_HOSTS = ['a b', '[', 'x:99999999', 'a@b', 'a/b'];
const MESSAGE = 'The Host header names no host: send the host name of the API, with its port if it has one.';
const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

let api: LocalApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** A raw request with the Host header given (fetch sets its own). */
function withHost(host: string, path: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const target = new URL(api.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path,
        method: 'POST',
        setHost: false,
        headers: {
          host,
          authorization: `Bearer ${manifest.keys.workspace}`,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(ping),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(ping);
  });
}

describe('a Host header that makes no URL', () => {
  test.each(BAD_HOSTS)('local adapter, Host %j on /mcp and on a REST path: 400 malformed_request in the envelope', async (host) => {
    for (const path of ['/api/v1/mcp', '/api/v1/me']) {
      const reply = await withHost(host, path);
      expect({ path, status: reply.status }).toEqual({ path, status: 400 });
      const body = JSON.parse(reply.body);
      expect(body).toEqual({ error: { code: 'malformed_request', message: MESSAGE, request_id: reply.headers['x-request-id'] } });
      expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    }
  });

  test('a good Host with a port is served', async () => {
    const reply = await withHost(`localhost:${new URL(api.url).port}`, '/api/v1/mcp');
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  test.each(BAD_HOSTS)('deployed path: an API Gateway event whose domain name is %j gets 400 from the MCP function', async (host) => {
    const { event } = toApiGatewayEvent({
      method: 'POST',
      url: '/api/v1/mcp',
      rawHeaders: [
        'Authorization',
        `Bearer ${manifest.keys.workspace}`,
        'Accept',
        'application/json, text/event-stream',
        'Content-Type',
        'application/json',
      ],
      body: ping,
    });
    const odd: APIGatewayProxyEventV2 = { ...event, requestContext: { ...event.requestContext, domainName: host } };
    const handler = mcpHandler(api.services) as unknown as (
      e: APIGatewayProxyEventV2,
      c: Context,
    ) => Promise<{ statusCode: number; body?: string }>;
    const result = await handler(odd, { getRemainingTimeInMillis: () => 10_000 } as Context);
    expect(result.statusCode).toBe(400);
    const body = JSON.parse(result.body ?? '');
    expect(body.error).toMatchObject({ code: 'malformed_request', message: MESSAGE });
  });
});
