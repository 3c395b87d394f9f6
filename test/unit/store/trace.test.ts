import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseTracingConfig, tracingConfig } from '#shared/config/tracing.js';
import { RateLimited, RateLimitUnavailable } from '#shared/errors.js';
import { createTracer, type Send, sampledHeader, span, tracedDb } from '#shared/store/trace.js';

const ROOT = '1-67a1b2c3-0123456789abcdef01234567';
const PARENT = '53995c3f42cd8ad8';
const SAMPLED = `Root=${ROOT};Parent=${PARENT};Sampled=1`;

/** A stand-in X-Ray daemon: a real UDP socket on loopback, keeping each datagram it receives. */
const daemon = createSocket('udp4');
const received: string[] = [];
let port = 0;
beforeAll(async () => {
  daemon.on('message', (msg) => received.push(msg.toString('utf8')));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  port = daemon.address().port;
});
afterAll(() => {
  daemon.close();
});

/** The sender the functions use, built from a Lambda environment that names the stand-in daemon. */
async function lambdaTracer(header: string | undefined) {
  const env = { AWS_LAMBDA_FUNCTION_NAME: 'geo-identity', AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${port}` };
  const { daemon: address } = parseTracingConfig(env);
  expect(address).toEqual({ host: '127.0.0.1', port });
  const socket = createSocket('udp4');
  const send: Send = (datagram) => socket.send(datagram, address!.port, address!.host);
  return { tracer: createTracer(send, () => header), close: () => socket.close() };
}

async function datagrams(count: number): Promise<Array<Record<string, unknown>>> {
  for (let i = 0; i < 100 && received.length < count; i++) await new Promise((r) => setTimeout(r, 10));
  const out = received.splice(0, received.length);
  return out.map((d) => {
    const [header, body] = d.split('\n');
    expect(JSON.parse(header!)).toEqual({ format: 'json', version: 1 });
    return JSON.parse(body!) as Record<string, unknown>;
  });
}

describe('tracing configuration: on only on Lambda, with a daemon, and not switched off', () => {
  it.each([
    [{}, undefined],
    [{ AWS_XRAY_DAEMON_ADDRESS: '169.254.79.129:2000' }, undefined],
    [{ AWS_LAMBDA_FUNCTION_NAME: 'f' }, undefined],
    [
      { AWS_LAMBDA_FUNCTION_NAME: 'f', AWS_XRAY_DAEMON_ADDRESS: '169.254.79.129:2000' },
      { host: '169.254.79.129', port: 2000 },
    ],
    [
      { AWS_LAMBDA_FUNCTION_NAME: 'f', AWS_XRAY_DAEMON_ADDRESS: 'tcp:10.0.0.1:2000 udp:10.0.0.2:2001' },
      { host: '10.0.0.2', port: 2001 },
    ],
    [{ AWS_LAMBDA_FUNCTION_NAME: 'f', AWS_XRAY_DAEMON_ADDRESS: '169.254.79.129:2000', POWERTOOLS_TRACE_DISABLED: 'true' }, undefined],
    [{ AWS_LAMBDA_FUNCTION_NAME: 'f', AWS_XRAY_DAEMON_ADDRESS: '169.254.79.129:2000', POWERTOOLS_TRACE_DISABLED: '1' }, undefined],
    [
      { AWS_LAMBDA_FUNCTION_NAME: 'f', AWS_XRAY_DAEMON_ADDRESS: '169.254.79.129:2000', POWERTOOLS_TRACE_DISABLED: 'false' },
      { host: '169.254.79.129', port: 2000 },
    ],
  ])('%j -> %j', (env, expected) => {
    expect(parseTracingConfig(env).daemon).toEqual(expected);
  });

  it('refuses a daemon address that is not host:port', () => {
    expect(() => parseTracingConfig({ AWS_LAMBDA_FUNCTION_NAME: 'f', AWS_XRAY_DAEMON_ADDRESS: 'nowhere' })).toThrow(
      'invalid configuration: AWS_XRAY_DAEMON_ADDRESS must be host:port',
    );
  });

  it('this test process is not on Lambda: its tracer is off, a span is the work itself, the store is handed over untouched', async () => {
    expect(tracingConfig().daemon).toBeUndefined();
    const work = Promise.resolve(42);
    expect(span('caller', () => work)).toBe(work);
    const db = { query: async <R>() => [] as R[] };
    expect(tracedDb(db)).toBe(db);
  });
});

describe('the trace header', () => {
  it('gives Root and Parent of a sampled invocation only', () => {
    expect(sampledHeader(SAMPLED)).toEqual({ root: ROOT, parent: PARENT });
    expect(sampledHeader(`Root=${ROOT};Parent=${PARENT};Sampled=0`)).toBeUndefined();
    expect(sampledHeader(`Root=${ROOT};Sampled=1`)).toBeUndefined();
    expect(sampledHeader(undefined)).toBeUndefined();
  });
});

describe('spans reach the daemon as subsegments of the invocation', () => {
  it('a served span: one datagram, under the invocation, timed around the work, the work answered as it was', async () => {
    const { tracer, close } = await lambdaTracer(SAMPLED);
    const before = Date.now() / 1000;
    const result = await tracer.span('caller', async () => {
      await new Promise((r) => setTimeout(r, 20));
      return 'rows';
    });
    const after = Date.now() / 1000;
    expect(result).toBe('rows');
    const [doc, ...more] = await datagrams(1);
    close();
    expect(more).toEqual([]);
    expect(doc).toMatchObject({ name: 'caller', trace_id: ROOT, parent_id: PARENT, type: 'subsegment', namespace: 'remote' });
    expect(doc!.id).toMatch(/^[0-9a-f]{16}$/);
    expect(doc!.fault).toBeUndefined();
    const start = doc!.start_time as number;
    const end = doc!.end_time as number;
    expect(start).toBeGreaterThanOrEqual(before - 0.001);
    expect(end).toBeLessThanOrEqual(after + 0.001);
    expect(end - start).toBeGreaterThanOrEqual(0.015);
  });

  it('a fault is marked fault, a refusal of the caller (429) error; the error still reaches the chain', async () => {
    const { tracer, close } = await lambdaTracer(SAMPLED);
    const unavailable = new RateLimitUnavailable({ fault: 'budget', message: 'timeout' });
    await expect(tracer.span('budget', () => Promise.reject(unavailable))).rejects.toBe(unavailable);
    const limited = new RateLimited(30);
    await expect(tracer.span('budget', () => Promise.reject(limited))).rejects.toBe(limited);
    const plain = new Error('connection reset');
    await expect(tracer.span('data', () => Promise.reject(plain))).rejects.toBe(plain);
    const docs = await datagrams(3);
    close();
    expect(docs.map((d) => [d.name, d.fault ?? false, d.error ?? false])).toEqual([
      ['budget', true, false],
      ['budget', false, true],
      ['data', true, false],
    ]);
  });

  it('an invocation that is not sampled sends nothing', async () => {
    const { tracer, close } = await lambdaTracer(`Root=${ROOT};Parent=${PARENT};Sampled=0`);
    expect(await tracer.span('data', async () => 7)).toBe(7);
    const none = await lambdaTracer(undefined);
    expect(await none.tracer.span('data', async () => 8)).toBe(8);
    await new Promise((r) => setTimeout(r, 50));
    expect(await datagrams(0)).toEqual([]);
    close();
    none.close();
  });

  it('a sender that throws drops the span, never the call', async () => {
    const tracer = createTracer(
      () => {
        throw new Error('EMSGSIZE');
      },
      () => SAMPLED,
    );
    expect(await tracer.span('caller', async () => 'served')).toBe('served');
  });
});
