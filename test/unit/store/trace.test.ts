import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { parseTracingConfig, tracingConfig } from '#shared/config/tracing.js';
import { RateLimited, RateLimitUnavailable } from '#shared/errors.js';
import { createTracer, loadPowertoolsTracer, span, type Tracer, tracedDb, tracerLoaded } from '#shared/store/trace.js';

const ROOT = '1-67a1b2c3-0123456789abcdef01234567';
const PARENT = '53995c3f42cd8ad8';
const SAMPLED = `Root=${ROOT};Parent=${PARENT};Sampled=1`;

/** A stand-in X-Ray daemon: a real UDP socket on loopback, keeping each datagram it receives. */
const daemon = createSocket('udp4');
const received: string[] = [];
let port = 0;
const saved = { ...process.env };
/** What Lambda sets and aws-xray-sdk-core and Powertools' tracer read to act as on Lambda. */
const LAMBDA_ENV = ['AWS_LAMBDA_FUNCTION_NAME', 'AWS_EXECUTION_ENV', 'LAMBDA_TASK_ROOT', 'AWS_XRAY_DAEMON_ADDRESS', '_X_AMZN_TRACE_ID'];

beforeAll(async () => {
  daemon.on('message', (msg) => received.push(msg.toString('utf8')));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  port = daemon.address().port;
});
afterAll(() => {
  daemon.close();
  for (const name of LAMBDA_ENV)
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
});

/** The module aws-xray-sdk-core's context tracking (cls-hooked) registers on `process` when it loads. */
const xrayContextLoaded = () => Boolean((process as unknown as { namespaces?: Record<string, unknown> }).namespaces?.AWSXRay);

async function datagrams(count: number): Promise<Array<Record<string, unknown>>> {
  for (let i = 0; i < 100 && received.length < count; i++) await new Promise((r) => setTimeout(r, 10));
  // Anything beyond `count` would arrive as promptly; give it the same chance before looking.
  await new Promise((r) => setTimeout(r, 50));
  const out = received.splice(0, received.length);
  return out.map((d) => {
    const [header, body] = d.split('\n');
    expect(JSON.parse(header!)).toEqual({ format: 'json', version: 1 });
    return JSON.parse(body!) as Record<string, unknown>;
  });
}

describe('tracing configuration: on only on Lambda, with a daemon, and not switched off', () => {
  const on = { AWS_LAMBDA_FUNCTION_NAME: 'f', AWS_XRAY_DAEMON_ADDRESS: '169.254.79.129:2000' };
  it.each([
    [{}, undefined],
    [{ AWS_XRAY_DAEMON_ADDRESS: '169.254.79.129:2000' }, undefined],
    [{ AWS_LAMBDA_FUNCTION_NAME: 'f' }, undefined],
    [on, { host: '169.254.79.129', port: 2000 }],
    [
      { AWS_LAMBDA_FUNCTION_NAME: 'f', AWS_XRAY_DAEMON_ADDRESS: 'tcp:10.0.0.1:2000 udp:10.0.0.2:2001' },
      { host: '10.0.0.2', port: 2001 },
    ],
    [{ ...on, POWERTOOLS_TRACE_DISABLED: 'true' }, undefined],
    [{ ...on, POWERTOOLS_TRACE_DISABLED: '1' }, undefined],
    [
      { ...on, POWERTOOLS_TRACE_DISABLED: 'false' },
      { host: '169.254.79.129', port: 2000 },
    ],
    [{ ...on, POWERTOOLS_TRACE_ENABLED: 'false' }, undefined],
    [
      { ...on, POWERTOOLS_TRACE_ENABLED: 'true' },
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

  it('this test process is not on Lambda: a span is the work itself, the store is handed over untouched, the tracer never loaded', async () => {
    expect(tracingConfig().daemon).toBeUndefined();
    const work = Promise.resolve(42);
    expect(span('caller', () => work)).toBe(work);
    expect(await span('budget', async () => 'done')).toBe('done');
    const db = { query: async <R>() => [] as R[] };
    expect(tracedDb(db)).toBe(db);
    expect(tracerLoaded()).toBe(false);
    expect(xrayContextLoaded()).toBe(false);
  });

  it('an off tracer never calls its loader', async () => {
    const load = jest.fn(loadPowertoolsTracer);
    const off = createTracer(undefined);
    expect(off.enabled).toBe(false);
    expect(await off.span('data', async () => 3)).toBe(3);
    expect(load).not.toHaveBeenCalled();
    expect(tracerLoaded()).toBe(false);
  });
});

describe('spans reach the daemon through Powertools, as subsegments of the invocation', () => {
  let tracer: Tracer;
  const load = jest.fn(loadPowertoolsTracer);

  beforeAll(() => {
    // As Lambda with active tracing sets them; the SDK reads the daemon's address and its Lambda mode when it loads.
    Object.assign(process.env, {
      AWS_LAMBDA_FUNCTION_NAME: 'geo-identity',
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      LAMBDA_TASK_ROOT: '/var/task',
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${port}`,
      _X_AMZN_TRACE_ID: SAMPLED,
    });
    const { daemon: address } = parseTracingConfig();
    expect(address).toEqual({ host: '127.0.0.1', port });
    tracer = createTracer(load);
  });

  it('a served span: one datagram, under the invocation, timed around the work, the work answered as it was; loaded once', async () => {
    process.env._X_AMZN_TRACE_ID = SAMPLED;
    expect(load).not.toHaveBeenCalled();
    // Loaded before the span starts: its timing covers the work, not the import.
    await tracer.span('warm', async () => undefined);
    await datagrams(1);
    const before = Date.now() / 1000;
    const result = await tracer.span('caller', async () => {
      await new Promise((r) => setTimeout(r, 20));
      return 'rows';
    });
    const after = Date.now() / 1000;
    expect(result).toBe('rows');
    const [doc, ...more] = await datagrams(1);
    expect(more).toEqual([]);
    expect(doc).toMatchObject({ name: 'caller', trace_id: ROOT, parent_id: PARENT, type: 'subsegment', namespace: 'remote' });
    expect(doc!.id).toMatch(/^[0-9a-f]{16}$/);
    expect(doc!.fault).toBeUndefined();
    expect(doc!.error).toBeUndefined();
    const start = doc!.start_time as number;
    const end = doc!.end_time as number;
    expect(start).toBeGreaterThanOrEqual(before - 0.001);
    expect(end).toBeLessThanOrEqual(after + 0.001);
    expect(end - start).toBeGreaterThanOrEqual(0.015);
    expect(load).toHaveBeenCalledTimes(1);
    expect(tracerLoaded()).toBe(true);
    expect(xrayContextLoaded()).toBe(true);
  });

  it('a fault is marked fault, a refusal of the caller (429) error; the error still reaches the chain', async () => {
    process.env._X_AMZN_TRACE_ID = SAMPLED;
    const unavailable = new RateLimitUnavailable({ fault: 'budget', message: 'timeout' });
    await expect(tracer.span('budget', () => Promise.reject(unavailable))).rejects.toBe(unavailable);
    const limited = new RateLimited(30);
    await expect(tracer.span('budget', () => Promise.reject(limited))).rejects.toBe(limited);
    const plain = new Error('connection reset');
    await expect(tracer.span('data', () => Promise.reject(plain))).rejects.toBe(plain);
    const docs = await datagrams(3);
    expect(docs.map((d) => [d.name, d.parent_id, d.fault ?? false, d.error ?? false])).toEqual([
      ['budget', PARENT, true, false],
      ['budget', PARENT, false, true],
      ['data', PARENT, true, false],
    ]);
  });

  it('nested spans: the inner one under the outer, and the invocation the parent again after both', async () => {
    process.env._X_AMZN_TRACE_ID = SAMPLED;
    await tracer.span('caller', () => tracer.span('data', async () => 1));
    await tracer.span('budget', async () => 2);
    const docs = await datagrams(3);
    const byName = Object.fromEntries(docs.map((d) => [d.name, d]));
    expect(Object.keys(byName).sort()).toEqual(['budget', 'caller', 'data']);
    expect(byName.data!.parent_id).toBe(byName.caller!.id);
    expect(byName.caller!.parent_id).toBe(PARENT);
    expect(byName.budget!.parent_id).toBe(PARENT);
  });

  it('each invocation is its own parent: a new trace header, new parent', async () => {
    const other = { root: '1-67a1b2c4-00000000000000000000abcd', parent: '0123456789abcdef' };
    process.env._X_AMZN_TRACE_ID = `Root=${other.root};Parent=${other.parent};Sampled=1`;
    await tracer.span('caller', async () => 'x');
    const [doc] = await datagrams(1);
    expect(doc).toMatchObject({ name: 'caller', trace_id: other.root, parent_id: other.parent });
  });

  it('an invocation that is not sampled sends nothing, and is served the same', async () => {
    process.env._X_AMZN_TRACE_ID = `Root=${ROOT};Parent=${PARENT};Sampled=0`;
    expect(await tracer.span('data', async () => 7)).toBe(7);
    expect(await datagrams(0)).toEqual([]);
  });

  it('a tracer that cannot load drops the spans, never the call', async () => {
    const broken = createTracer(() => Promise.reject(new Error('Cannot find module')));
    expect(await broken.span('caller', async () => 'served')).toBe('served');
    expect(await datagrams(0)).toEqual([]);
  });
});
