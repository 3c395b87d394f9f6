import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:dgram';
import { createRequire as requireFrom } from 'node:module';
import { invocationTraceHeader, type TracingConfig, tracingConfig } from '../config/tracing.js';
import { ApiError } from '../errors.js';
import type { Db } from './db.js';

/**
 * X-Ray spans for the three round trips of a call: `caller` (the caller statement), `budget` (the budget
 * UpdateItem) and `data` (the read's statement), the names of Server-Timing and of the request line's
 * `*_ms` fields. Lambda's active tracing makes the invocation's segments; each span here is a subsegment
 * of it, sent as one UDP datagram to the X-Ray daemon the runtime runs, in the daemon's documented form
 * (a JSON header line, then the subsegment document). No SDK: Powertools' tracer would bring
 * aws-xray-sdk-core, some 120 KiB minified and async_hooks context tracking, into every bundle and cold
 * start, for three spans (docs/operating.md#tracing). Off (tracing config without a daemon, or an
 * invocation not sampled), a span is the work itself and nothing more.
 */

/** Sends one datagram; the real one is a UDP socket to the daemon. */
export type Send = (datagram: string) => void;

interface TraceHeader {
  root: string;
  parent: string;
}

/** Root and Parent of a sampled invocation's header; undefined when it is absent or not sampled. */
export function sampledHeader(header: string | undefined): TraceHeader | undefined {
  if (!header) return undefined;
  const fields = new Map(
    header.split(';').map((part) => {
      const eq = part.indexOf('=');
      return [part.slice(0, eq).trim(), part.slice(eq + 1).trim()] as const;
    }),
  );
  const root = fields.get('Root');
  const parent = fields.get('Parent');
  if (!root || !parent || fields.get('Sampled') !== '1') return undefined;
  return { root, parent };
}

const DAEMON_HEADER = '{"format":"json","version":1}\n';

export interface Tracer {
  readonly enabled: boolean;
  span<T>(name: string, work: () => Promise<T>): Promise<T>;
}

/**
 * A tracer that sends through `send`, reading the invocation's header with `header`. With `send`
 * undefined it is off: `span` runs the work and returns its promise untouched.
 */
export function createTracer(send: Send | undefined, header: () => string | undefined = invocationTraceHeader): Tracer {
  if (!send) return { enabled: false, span: (_name, work) => work() };
  const emit = (name: string, parent: TraceHeader, start: number, outcome: Record<string, unknown>): void => {
    const doc = {
      name,
      id: randomBytes(8).toString('hex'),
      trace_id: parent.root,
      parent_id: parent.parent,
      type: 'subsegment',
      namespace: 'remote',
      start_time: start,
      end_time: Date.now() / 1000,
      ...outcome,
    };
    try {
      send(DAEMON_HEADER + JSON.stringify(doc));
    } catch {
      // A span that cannot be sent is dropped; the call it describes goes on.
    }
  };
  return {
    enabled: true,
    async span(name, work) {
      const parent = sampledHeader(header());
      if (!parent) return work();
      const start = Date.now() / 1000;
      try {
        const result = await work();
        emit(name, parent, start, {});
        return result;
      } catch (err) {
        // A refusal of the caller's making (429 past the budget) is an error; anything else a fault.
        const refused = err instanceof ApiError && err.status < 500;
        emit(name, parent, start, refused ? { error: true } : { fault: true });
        throw err;
      }
    },
  };
}

/** A UDP sender to the daemon; node:dgram is loaded only here, so a process that traces nothing never loads it. */
function udpSend(daemon: NonNullable<TracingConfig['daemon']>): Send {
  const load = requireFrom(import.meta.url);
  let socket: Socket | undefined;
  return (datagram) => {
    if (!socket) {
      socket = (load('node:dgram') as typeof import('node:dgram')).createSocket('udp4');
      // Never what keeps a process alive, nor what fails it.
      socket.unref();
      socket.on('error', () => {});
    }
    socket.send(datagram, daemon.port, daemon.host);
  };
}

let processTracer: Tracer | undefined;
function tracer(): Tracer {
  if (!processTracer) {
    const { daemon } = tracingConfig();
    processTracer = createTracer(daemon ? udpSend(daemon) : undefined);
  }
  return processTracer;
}

/** Runs `work` as the span `name` of the invocation in progress, when this process traces. */
export function span<T>(name: string, work: () => Promise<T>): Promise<T> {
  return tracer().span(name, work);
}

/** The store as a read sees it, its statement traced as the span `data`; the store itself when tracing is off. */
export function tracedDb(db: Db): Db {
  const t = tracer();
  if (!t.enabled) return db;
  return { query: <R>(text: string, params?: unknown[]) => t.span('data', () => db.query<R>(text, params)) };
}
