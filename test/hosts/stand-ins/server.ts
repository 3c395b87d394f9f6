import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a host sent to its model API, as it arrived. */
export interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The JSON body, or undefined when there was none or it was not JSON. */
  body: any;
}

export interface StandIn {
  /** http://127.0.0.1:<port>, without a trailing slash. */
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

export type Answer = (request: Recorded, res: ServerResponse) => void;

/**
 * A model API on the loopback interface, on a port of its own: every request is recorded before it is
 * answered, so a test reads back what the host sent its model (the tool list, the tool results).
 */
export async function startStandIn(answer: Answer): Promise<StandIn> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      const recorded: Recorded = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      requests.push(recorded);
      try {
        answer(recorded, res);
      } catch (err) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes a server-sent event stream: one `data:` event per payload (named when `event` is given). */
export function sse(res: ServerResponse, events: Array<{ event?: string; data: unknown }>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`);
  res.end();
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
