import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';

/**
 * A TLS-terminating PostgreSQL front standing in for what AWS puts before the database: the RDS Proxy
 * (TLS required, IAM token as the password, session parameters refused in the startup packet, its
 * InitQuery run on each database connection it opens) or the Aurora cluster endpoint itself (TLS, the
 * admin password). Behind it, a real PostgreSQL (the server, or the embedded store's socket) speaks the
 * rest of the protocol: after the login, bytes are piped both ways untouched.
 */

export interface FrontOptions {
  /** Loopback address to listen on, with the deployed port (the template's DB_PORT, kept literally). */
  host: string;
  port: number;
  cert: string;
  key: string;
  /** Checks the password the client sent for the user it named; null = accepted, else the reason. */
  authenticate(user: string, password: string): string | null;
  /** Startup parameters accepted besides user and database; undefined: all (a database accepts them). */
  acceptedParameters?: string[];
  /** Run on every upstream connection before the client gets it (RDS Proxy's InitQuery). */
  initQuery?: string;
  upstream: { host: string; port: number; user: string; database: string };
}

export interface FrontEvent {
  user: string;
  database: string;
  parameters: Record<string, string>;
  outcome: 'ok' | 'refused';
  reason?: string;
  /** The init query ran on this session's upstream connection before the client got it. */
  initQuery?: boolean;
}

export interface Front {
  events: FrontEvent[];
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const PROTOCOL_3 = 196608;

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

function errorResponse(code: string, text: string): Buffer {
  const field = (t: string, v: string) => Buffer.concat([Buffer.from(t, 'latin1'), Buffer.from(v, 'utf8'), Buffer.alloc(1)]);
  return message('E', Buffer.concat([field('S', 'FATAL'), field('V', 'FATAL'), field('C', code), field('M', text), Buffer.alloc(1)]));
}

function startupPacket(params: Record<string, string>): Buffer {
  const pairs = Object.entries(params).flatMap(([k, v]) => [Buffer.from(`${k}\0`, 'utf8'), Buffer.from(`${v}\0`, 'utf8')]);
  const body = Buffer.concat([...pairs, Buffer.alloc(1)]);
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(PROTOCOL_3, 4);
  return Buffer.concat([head, body]);
}

/** Reads framed data from a socket: untyped startup packets first, then typed messages. */
class Reader {
  private buf = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  private ended = false;

  constructor(private readonly socket: net.Socket | tls.TLSSocket) {
    socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.waiting?.();
    });
    const end = () => {
      this.ended = true;
      this.waiting?.();
    };
    socket.on('end', end);
    socket.on('close', end);
    socket.on('error', end);
  }

  private async need(n: number): Promise<void> {
    while (this.buf.length < n) {
      if (this.ended) throw new Error('connection closed');
      await new Promise<void>((resolve) => (this.waiting = resolve));
      this.waiting = undefined;
    }
  }

  async packet(): Promise<Buffer> {
    await this.need(4);
    const len = this.buf.readInt32BE(0);
    await this.need(len);
    const p = this.buf.subarray(0, len);
    this.buf = this.buf.subarray(len);
    return p;
  }

  async typed(): Promise<{ type: string; body: Buffer; raw: Buffer }> {
    await this.need(5);
    const len = this.buf.readInt32BE(1);
    await this.need(1 + len);
    const raw = this.buf.subarray(0, 1 + len);
    this.buf = this.buf.subarray(1 + len);
    return { type: String.fromCharCode(raw[0]!), body: raw.subarray(5), raw };
  }

  /** Whatever arrived beyond what was read (pipelined bytes), handed over when piping starts. */
  rest(): Buffer {
    const r = this.buf;
    this.buf = Buffer.alloc(0);
    this.socket.removeAllListeners('data');
    return r;
  }
}

function parseStartup(p: Buffer): Record<string, string> {
  const parts = p.subarray(8).toString('utf8').split('\0');
  const params: Record<string, string> = {};
  for (let i = 0; i + 1 < parts.length && parts[i] !== ''; i += 2) params[parts[i]!] = parts[i + 1]!;
  return params;
}

/** Logs in upstream (trust, or a cleartext password if asked), runs the init query, returns what the client must see. */
async function openUpstream(
  opts: FrontOptions,
  params: Record<string, string>,
): Promise<{ socket: net.Socket; reader: Reader; greeting: Buffer[]; initQuery: boolean }> {
  const socket = net.connect(opts.upstream.port, opts.upstream.host);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const reader = new Reader(socket);
  socket.write(startupPacket({ ...params, user: opts.upstream.user, database: opts.upstream.database }));
  const greeting: Buffer[] = [];
  for (;;) {
    const m = await reader.typed();
    if (m.type === 'E') throw new Error(`upstream refused the login: ${m.body.toString('utf8').replace(/\0/g, ' ')}`);
    if (m.type === 'R') {
      const code = m.body.readInt32BE(0);
      if (code === 3) socket.write(message('p', Buffer.from('\0')));
      else if (code !== 0) throw new Error(`upstream asks for authentication ${code}; the stand-in needs trust`);
      continue;
    }
    if (m.type === 'Z') break;
    greeting.push(m.raw);
  }
  if (opts.initQuery) {
    socket.write(message('Q', Buffer.from(`${opts.initQuery}\0`, 'utf8')));
    for (;;) {
      const m = await reader.typed();
      if (m.type === 'E') throw new Error(`init query failed: ${m.body.toString('utf8').replace(/\0/g, ' ')}`);
      if (m.type === 'Z') break;
    }
  }
  return { socket, reader, greeting, initQuery: opts.initQuery !== undefined };
}

async function serve(client: net.Socket, opts: FrontOptions, events: FrontEvent[]): Promise<void> {
  const plain = new Reader(client);
  let first = await plain.packet();
  while (first.readInt32BE(4) === GSS_REQUEST) {
    client.write('N');
    first = await plain.packet();
  }
  if (first.readInt32BE(4) !== SSL_REQUEST) {
    // RDS Proxy with RequireTLS, and Aurora with rds.force_ssl: no plaintext session.
    client.end(errorResponse('28000', 'This RDS Proxy requires TLS connections'));
    return;
  }
  plain.rest();
  client.write('S');
  const secure = new tls.TLSSocket(client, { isServer: true, cert: readFileSync(opts.cert), key: readFileSync(opts.key) });
  const reader = new Reader(secure);
  const startup = await reader.packet();
  if (startup.readInt32BE(4) !== PROTOCOL_3) {
    secure.end(errorResponse('08P01', 'unsupported protocol'));
    return;
  }
  const params = parseStartup(startup);
  const user = params.user ?? '';
  const database = params.database ?? user;
  const event: FrontEvent = { user, database, parameters: params, outcome: 'refused' };
  events.push(event);
  const extra = Object.keys(params).filter((k) => k !== 'user' && k !== 'database');
  const refusedParameter = opts.acceptedParameters ? extra.find((k) => !opts.acceptedParameters!.includes(k)) : undefined;
  if (refusedParameter) {
    event.reason = `unsupported startup parameter: ${refusedParameter}`;
    secure.end(errorResponse('08P01', event.reason));
    return;
  }
  // RDS Proxy asks for the password in clear text (over TLS): the IAM token is sent as the password.
  secure.write(message('R', Buffer.from([0, 0, 0, 3])));
  const pw = await reader.typed();
  if (pw.type !== 'p') {
    secure.end(errorResponse('08P01', 'expected a password message'));
    return;
  }
  const reason = opts.authenticate(user, pw.body.toString('utf8').replace(/\0$/, ''));
  if (reason) {
    event.reason = reason;
    secure.end(errorResponse('28P01', `password authentication failed for user "${user}"`));
    return;
  }
  const forwarded = Object.fromEntries(Object.entries(params).filter(([k]) => k !== 'user' && k !== 'database'));
  let upstream: Awaited<ReturnType<typeof openUpstream>>;
  try {
    upstream = await openUpstream(opts, forwarded);
  } catch (err) {
    event.reason = (err as Error).message;
    secure.end(errorResponse('08006', event.reason));
    return;
  }
  event.outcome = 'ok';
  event.initQuery = upstream.initQuery;
  const ready = message('Z', Buffer.from('I', 'latin1'));
  secure.write(Buffer.concat([message('R', Buffer.from([0, 0, 0, 0])), ...upstream.greeting, ready]));
  const pending = reader.rest();
  if (pending.length > 0) upstream.socket.write(pending);
  const upRest = upstream.reader.rest();
  if (upRest.length > 0) secure.write(upRest);
  secure.pipe(upstream.socket);
  upstream.socket.pipe(secure);
  const close = () => {
    secure.destroy();
    upstream.socket.destroy();
  };
  secure.on('close', close).on('error', close);
  upstream.socket.on('close', close).on('error', close);
}

export async function startFront(opts: FrontOptions): Promise<Front> {
  const events: FrontEvent[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    serve(client, opts, events).catch(() => client.destroy());
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(opts.port, opts.host, () => resolve()));
  return {
    events,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
