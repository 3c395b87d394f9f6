import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy between the API and PostgreSQL, standing in for the network and for a store that
 * sleeps, crawls or refuses. It also reads the PostgreSQL wire protocol of the client side (no
 * rewriting), so a test can see the startup parameters that really left for the server and count
 * the statements and round trips of a call.
 *
 * Modes:
 *  - pass:   bytes flow both ways;
 *  - hold:   bytes are kept (both ways, existing and new connections) until the mode changes: a store asleep;
 *  - delay:  every chunk waits `delayMs` before being forwarded: a slow store or network;
 *  - refuse: the listener is closed and live connections are cut: ECONNREFUSED, like a stopped server.
 *
 * `refuseStartup` makes the proxy answer new connections itself, as a PostgreSQL server that refuses the
 * session would, byte for byte on the wire: for the refusals the shared server (trust auth, no restart
 * allowed) cannot be made to give: a wrong password, TLS demanded by pg_hba, a server starting up.
 *
 * `cutOnStatement` loses one connection at a chosen point of a call: the connection whose client sends
 * a statement matching the pattern is closed on both sides instead of forwarding it, as when the store
 * restarts or the network drops between two statements of one call.
 */
export type ProxyMode = 'pass' | 'hold' | 'delay' | 'refuse';

export interface WireCounts {
  /** Simple-protocol Query messages. */
  query: number;
  parse: number;
  bind: number;
  execute: number;
  /** Extended-protocol Sync messages: with `query`, one per round trip. */
  sync: number;
  /** Bytes sent by the client after startup. */
  bytes: number;
  /** The SQL texts seen in Parse and Query messages, in order. */
  statements: string[];
}

/** A FATAL ErrorResponse sent after the startup message (and after a password, if one is asked for). */
export interface StartupRefusal {
  code: string;
  message: string;
  /** Ask for a cleartext password first (AuthenticationCleartextPassword), then refuse it. */
  askPassword?: boolean;
}

export interface PgProxy {
  url: (user: string) => string;
  port: number;
  mode: ProxyMode;
  setMode(mode: ProxyMode, delayMs?: number): Promise<void>;
  /** Startup parameters of every connection opened through the proxy (user, database, statement_timeout...). */
  startups: Array<Record<string, string>>;
  /** Answer new connections with this refusal (null: forward them to the server again). */
  refuseStartup(refusal: StartupRefusal | null): void;
  /**
   * Close, on both sides, the next connection whose client sends a statement (Parse or Query) matching
   * `pattern`; that statement never reaches the server. Disarms after one cut; null disarms.
   */
  cutOnStatement(pattern: RegExp | null): void;
  /** Connections cut by cutOnStatement since the proxy started. */
  cuts(): number;
  /** Connections currently open through the proxy. */
  open(): number;
  counts: WireCounts;
  resetCounts(): void;
  /** Every byte the clients sent since the last resetCounts (capped at 8 MB), to search for what must never leave. */
  sent(): Buffer;
  close(): Promise<void>;
}

const emptyCounts = (): WireCounts => ({ query: 0, parse: 0, bind: 0, execute: 0, sync: 0, bytes: 0, statements: [] });

/** Decodes the client side of the protocol as it streams by; chunks may split messages anywhere. */
class ClientWireReader {
  private buf = Buffer.alloc(0);
  private started = false;

  constructor(private readonly proxy: { startups: Array<Record<string, string>>; counts: WireCounts }) {}

  /** Decodes what the chunk completes; returns the SQL texts of the statements it completed. */
  push(chunk: Buffer): string[] {
    const seen: string[] = [];
    this.buf = Buffer.concat([this.buf, chunk]);
    for (;;) {
      if (!this.started) {
        if (this.buf.length < 8) return seen;
        const len = this.buf.readInt32BE(0);
        if (this.buf.length < len) return seen;
        const code = this.buf.readInt32BE(4);
        // 80877103 = SSLRequest, 80877104 = GSSENCRequest: answered by the server, then the real startup follows.
        if (code !== 80877103 && code !== 80877104) {
          const fields = this.buf.subarray(8, len).toString('utf8').split('\0');
          const params: Record<string, string> = {};
          for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i]) params[fields[i] as string] = fields[i + 1] as string;
          this.proxy.startups.push(params);
          this.started = true;
        }
        this.buf = this.buf.subarray(len);
        continue;
      }
      if (this.buf.length < 5) return seen;
      const type = String.fromCharCode(this.buf[0] as number);
      const len = this.buf.readInt32BE(1);
      if (this.buf.length < 1 + len) return seen;
      const body = this.buf.subarray(5, 1 + len);
      const c = this.proxy.counts;
      c.bytes += 1 + len;
      if (type === 'Q') {
        c.query += 1;
        seen.push(body.toString('utf8').replace(/\0$/, ''));
        c.statements.push(seen[seen.length - 1] as string);
      } else if (type === 'P') {
        c.parse += 1;
        // Parse: statement name \0, query text \0, ...
        const nameEnd = body.indexOf(0);
        const textEnd = body.indexOf(0, nameEnd + 1);
        seen.push(body.subarray(nameEnd + 1, textEnd).toString('utf8'));
        c.statements.push(seen[seen.length - 1] as string);
      } else if (type === 'B') c.bind += 1;
      else if (type === 'E') c.execute += 1;
      else if (type === 'S') c.sync += 1;
      this.buf = this.buf.subarray(1 + len);
    }
  }
}

function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`, 'utf8');
  const head = Buffer.alloc(5);
  head.write('E', 0, 'latin1');
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
}

/** Plays the server side of a refused session: 'N' to a TLS request, then the refusal. */
function refuseSession(client: Socket, refusal: StartupRefusal): void {
  let buf = Buffer.alloc(0);
  let stage: 'startup' | 'password' = 'startup';
  client.on('error', () => client.destroy());
  client.on('data', (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      if (stage === 'startup') {
        if (buf.length < 8) return;
        const len = buf.readInt32BE(0);
        if (buf.length < len) return;
        const code = buf.readInt32BE(4);
        buf = buf.subarray(len);
        // SSLRequest / GSSENCRequest: this server offers neither; the client decides whether to go on.
        if (code === 80877103 || code === 80877104) {
          client.write('N');
          continue;
        }
        if (refusal.askPassword) {
          const ask = Buffer.alloc(9);
          ask.write('R', 0, 'latin1');
          ask.writeInt32BE(8, 1);
          ask.writeInt32BE(3, 5); // AuthenticationCleartextPassword
          client.write(ask);
          stage = 'password';
          continue;
        }
        client.end(errorResponse(refusal.code, refusal.message));
        return;
      }
      if (buf.length < 5) return;
      const len = buf.readInt32BE(1);
      if (buf.length < 1 + len) return;
      client.end(errorResponse(refusal.code, refusal.message));
      return;
    }
  });
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

export async function startPgProxy(target: { host: string; port: number; database: string }): Promise<PgProxy> {
  let server: Server | undefined;
  let port = 0;
  let delayMs = 0;
  const pairs = new Set<Pair>();
  // Chunks kept while holding, flushed in order when the mode changes.
  let held: Array<{ to: Socket; chunk: Buffer }> = [];

  let sniffed: Buffer[] = [];
  let sniffedBytes = 0;
  const state = {
    mode: 'pass' as ProxyMode,
    startups: [] as Array<Record<string, string>>,
    counts: emptyCounts(),
  };

  const forward = (to: Socket, chunk: Buffer): void => {
    if (to.destroyed) return;
    if (state.mode === 'hold') held.push({ to, chunk });
    else if (state.mode === 'delay') setTimeout(() => to.destroyed || to.write(chunk), delayMs);
    else to.write(chunk);
  };

  let refusal: StartupRefusal | null = null;
  let cutPattern: RegExp | null = null;
  let cutCount = 0;

  const onConnection = (client: Socket): void => {
    if (refusal) {
      refuseSession(client, refusal);
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair: Pair = { client, upstream };
    pairs.add(pair);
    const reader = new ClientWireReader(state);
    client.on('data', (chunk: Buffer) => {
      const statements = reader.push(chunk);
      const pattern = cutPattern;
      if (pattern && statements.some((sql) => pattern.test(sql))) {
        cutPattern = null;
        cutCount += 1;
        end();
        return;
      }
      if (sniffedBytes < 8 * 1024 * 1024) {
        sniffed.push(chunk);
        sniffedBytes += chunk.length;
      }
      forward(upstream, chunk);
    });
    upstream.on('data', (chunk: Buffer) => forward(client, chunk));
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  };

  const listen = async (): Promise<void> => {
    server = createServer(onConnection);
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  };

  const stopListening = async (): Promise<void> => {
    const s = server;
    server = undefined;
    for (const p of pairs) {
      p.client.destroy();
      p.upstream.destroy();
    }
    pairs.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  await listen();

  return {
    get port() {
      return port;
    },
    get mode() {
      return state.mode;
    },
    url: (user) => `postgres://${user}@127.0.0.1:${port}/${target.database}`,
    startups: state.startups,
    get counts() {
      return state.counts;
    },
    resetCounts() {
      state.counts = emptyCounts();
      sniffed = [];
      sniffedBytes = 0;
    },
    sent: () => Buffer.concat(sniffed),
    open: () => pairs.size,
    refuseStartup(r) {
      refusal = r;
    },
    cutOnStatement(pattern) {
      cutPattern = pattern;
    },
    cuts: () => cutCount,
    async setMode(mode, ms = 0) {
      const before = state.mode;
      state.mode = mode;
      delayMs = ms;
      if (mode === 'refuse') {
        held = [];
        await stopListening();
        return;
      }
      if (before === 'refuse' && !server) await listen();
      if (mode !== 'hold') {
        const flush = held;
        held = [];
        for (const { to, chunk } of flush) forward(to, chunk);
      }
    },
    async close() {
      held = [];
      await stopListening();
    },
  };
}
