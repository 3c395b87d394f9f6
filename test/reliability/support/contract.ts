import type { ReadDef } from '#shared/reads/types.js';
import type { LocalApi } from '../../../local/stack.js';
import { type RawReply, rawRequest } from './raw-http.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** GET a path below /api/v1 with `Authorization: Bearer <key>`, raw on the wire. */
export function get(api: LocalApi, path: string, key?: string, extra: Array<[string, string]> = []): Promise<RawReply> {
  const headers: Array<[string, string]> = key ? [['Authorization', `Bearer ${key}`], ...extra] : extra;
  return rawRequest(api.url, { target: `/api/v1${path}`, headers });
}

/**
 * Problems with a reply against the contract every response owes (docs/contract.md#error-body,
 * #response-headers, docs/decisions.md#decisions-the-contract-leaves-open), as strings: empty means it holds.
 * Returned rather than thrown so that property tests can report the whole list for the counterexample they
 * shrink to.
 */
export function contractProblems(reply: RawReply, read: ReadDef | undefined): string[] {
  const p = headerProblems(reply);
  const requestId = reply.header('x-request-id');
  if (reply.status >= 500 && reply.status !== 503) p.push(`status ${reply.status}`);
  if (reply.status === 200) {
    // A path whose dot segments resolve to the base path lands on the index (docs/contract.md#methods).
    const index = reply.body?.links?.openapi === '/api/v1/openapi.json' && reply.body?.links?.mcp === '/api/v1/mcp';
    if (!read && !index) p.push('200 on a path that is no read');
    else if (read) {
      const parsed = read.output.safeParse(reply.body);
      if (!parsed.success) p.push(`200 body does not match ${read.name}: ${parsed.error.message.slice(0, 300)}`);
    }
    return p;
  }
  const body = reply.body;
  if (!body || typeof body !== 'object' || Object.keys(body).join() !== 'error')
    p.push(`not the error envelope: ${reply.text.slice(0, 200)}`);
  else {
    const e = body.error;
    const keys = Object.keys(e).sort().join();
    if (keys !== 'code,message,request_id' && keys !== 'code,message,param,request_id') p.push(`error keys ${keys}`);
    if (typeof e.code !== 'string' || typeof e.message !== 'string') p.push('code/message not strings');
    if (e.request_id !== requestId) p.push(`request_id ${e.request_id} != header ${requestId}`);
    if ('param' in e && typeof e.param !== 'string') p.push('param not a string');
  }
  return p;
}

/** Headers every response carries, whatever the route (REST, /mcp, /openapi.json) and outcome. */
export function headerProblems(reply: RawReply): string[] {
  const p: string[] = [];
  const requestId = reply.header('x-request-id');
  if (!requestId || !UUID.test(requestId)) p.push(`x-request-id ${requestId}`);
  if (reply.header('content-type') !== 'application/json; charset=utf-8') p.push(`content-type ${reply.header('content-type')}`);
  if (reply.header('cache-control') !== 'no-store') p.push(`cache-control ${reply.header('cache-control')}`);
  if (reply.header('x-content-type-options') !== 'nosniff') p.push(`x-content-type-options ${reply.header('x-content-type-options')}`);
  if (reply.headers.server) p.push(`server banner ${reply.header('server')}`);
  if (reply.headers['x-powered-by']) p.push(`x-powered-by ${reply.header('x-powered-by')}`);
  if ((reply.headers['x-request-id'] ?? []).length > 1) p.push('x-request-id repeated');
  return p;
}

/** The refusal of a store or counter that did not answer: no data, no budget spent or shown. */
export function unavailableProblems(reply: RawReply, code: 'upstream_timeout' | 'rate_limit_unavailable', boundMs: number): string[] {
  const p = contractProblems(reply, undefined);
  if (reply.status !== 503 || reply.body?.error?.code !== code)
    p.push(`expected 503 ${code}, got ${reply.status} ${reply.body?.error?.code}`);
  const retryAfter = reply.header('retry-after');
  // Retry-After, when present, is a small whole number of seconds: enough for Aurora to wake (~20 s).
  if (retryAfter !== undefined && !(/^\d+$/.test(retryAfter) && Number(retryAfter) >= 1 && Number(retryAfter) <= 60))
    p.push(`retry-after ${retryAfter}`);
  if (reply.ms > boundMs) p.push(`answered in ${Math.round(reply.ms)} ms, bound ${boundMs} ms`);
  if (reply.headers['x-ratelimit-remaining']) p.push('budget headers on a refusal decided before the budget');
  return p;
}
