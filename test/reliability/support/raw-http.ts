import { connect } from 'node:net';

export interface RawReply {
  status: number;
  /** Lower-case header names; repeated headers keep every value. */
  headers: Record<string, string[]>;
  header(name: string): string | undefined;
  text: string;
  body: any;
  /** Size of the response body on the wire (after de-chunking), in bytes. */
  bytes: number;
  /** Wall time from the first byte written to the end of the response. */
  ms: number;
}

/**
 * One HTTP/1.1 request written byte for byte on a fresh socket (`Connection: close`), so a test
 * controls exactly what reaches the server: header case, repeats, tabs, raw bytes in the target,
 * none of which fetch or node:http let through unchanged.
 */
export function rawRequest(
  base: string,
  opts: { method?: string; target: string; headers?: Array<[string, string]>; body?: string | Buffer; timeoutMs?: number },
): Promise<RawReply> {
  const url = new URL(base);
  const body = opts.body === undefined ? undefined : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body, 'utf8');
  const lines = [`${opts.method ?? 'GET'} ${opts.target} HTTP/1.1`, `Host: ${url.host}`, 'Connection: close'];
  for (const [name, value] of opts.headers ?? []) lines.push(`${name}: ${value}`);
  if (body) lines.push(`Content-Length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8');
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete response within ${opts.timeoutMs ?? 30000} ms for ${opts.target.slice(0, 200)}`));
    }, opts.timeoutMs ?? 30000);
    socket.on('connect', () => {
      socket.write(body ? Buffer.concat([head, body]) : head);
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    // The server may close before reading a refused body; what it answered is still what counts.
    socket.on('error', (err) => {
      if (chunks.length === 0) {
        clearTimeout(timer);
        reject(err);
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseResponse(Buffer.concat(chunks), performance.now() - t0));
      } catch (err) {
        reject(err);
      }
    });
  });
}

function dechunk(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = Number.parseInt(buf.subarray(at, eol).toString('latin1'), 16);
    if (!size) break;
    out.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

export function parseResponse(buf: Buffer, ms: number): RawReply {
  const split = buf.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`incomplete HTTP response: ${JSON.stringify(buf.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...headerLines] = buf.subarray(0, split).toString('latin1').split('\r\n');
  const status = Number((statusLine ?? '').split(' ')[1]);
  const headers: Record<string, string[]> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    (headers[name] ??= []).push(line.slice(colon + 1).trim());
  }
  let raw = buf.subarray(split + 4);
  if (headers['transfer-encoding']?.some((v) => /chunked/i.test(v))) raw = dechunk(raw);
  const text = raw.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status, headers, header: (n) => headers[n.toLowerCase()]?.[0], text, body, bytes: raw.length, ms };
}
