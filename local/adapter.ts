import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { type ApiError, BAD_HOST, errorBody, HeadersTooLarge, MalformedRequest, PayloadTooLarge } from '#shared/errors.js';
import { requestUrl } from '#shared/mcp/server.js';
import { baseHeaders } from '#shared/middleware/response-headers.js';
import { DEFAULT_ROUTE_KEY, DEFAULT_TARGET, matchPath, routeKey, routes, type Target } from '#shared/rest/routes.js';

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
export type Handlers = Record<Target, LambdaHandler>;

/** A page only the local server serves (GET, exact path), outside the API: e.g. the reference at /docs. */
export type LocalPage = () => Promise<{ status: number; headers: Record<string, string>; body: string | Buffer }>;
export type LocalPages = Record<string, LocalPage>;

/** Lambda's synchronous payload limit; beyond it API Gateway + Lambda refuse before our code runs. */
const MAX_BODY_BYTES = 6 * 1024 * 1024;

export interface RawRequest {
  method: string;
  url: string;
  /** Node's rawHeaders: name, value, name, value... (keeps duplicates, unlike req.headers). */
  rawHeaders: string[];
  body: string;
  sourceIp?: string;
}

/**
 * Builds the event API Gateway (HTTP API, payload 2.0) would send: lower-case headers with repeated
 * ones joined by commas, repeated query values joined by commas, URL-decoded path parameters, and
 * `$default` when no route matches. test/fixtures/apigw holds recorded samples it is checked against.
 */
export function toApiGatewayEvent(req: RawRequest): { event: APIGatewayProxyEventV2; target: Target } {
  const url = new URL(req.url, 'http://localhost');
  const rawQueryString = url.search.startsWith('?') ? url.search.slice(1) : url.search;
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] as string).toLowerCase();
    // Node reads header bytes as Latin-1; API Gateway hands a function the values decoded from UTF-8.
    const value = Buffer.from(req.rawHeaders[i + 1] as string, 'latin1').toString('utf8');
    headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;

  let target: Target = DEFAULT_TARGET;
  let key = DEFAULT_ROUTE_KEY;
  let pathParameters: Record<string, string> | undefined;
  for (const route of routes()) {
    const params = route.method === req.method ? matchPath(route.path, url.pathname) : null;
    if (params) {
      target = route.target;
      key = routeKey(route);
      if (Object.keys(params).length > 0) pathParameters = params;
      break;
    }
  }
  const now = new Date();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: key,
    rawPath: url.pathname,
    rawQueryString,
    headers,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] as string,
      http: {
        method: req.method,
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: req.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomBytes(12).toString('base64'),
      routeKey: key,
      stage: '$default',
      time: clfTime(now),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    ...(pathParameters ? { pathParameters } : {}),
    ...(req.body.length > 0 ? { body: req.body } : {}),
  };
  return { event, target };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** requestContext.time as API Gateway writes it: CLF style, 24/May/2025:14:32:02 +0000. */
export function clfTime(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

/** The context Lambda gives a handler: its name, a request id, a 29 s deadline (API Gateway's). */
export function lambdaContext(functionName: string): Context {
  const deadline = Date.now() + 29_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A refusal of the adapter itself (API Gateway's part: body too large, headers too large, not HTTP), in the
 * docs/contract.md#error-body envelope with its own request id, like every other response of the local stack.
 */
export function gatewayRefusal(err: ApiError): { status: number; headers: Record<string, string>; body: string } {
  const requestId = randomUUID();
  return { status: err.status, headers: baseHeaders(requestId), body: JSON.stringify(errorBody(err, requestId)) };
}

/**
 * Node's HTTP parser refuses some requests before any handler runs: headers over its 16 KB limit
 * (HPE_HEADER_OVERFLOW → 431) and malformed request lines, headers or framing (→ 400). Its default
 * answer is a bare status line; this one carries the envelope. The socket cannot be reused after a
 * parse error, so the answer closes it.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset or a request timeout: nobody is waiting for an answer on that socket.
  if (err.code === 'ECONNRESET' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
    socket.destroy();
    return;
  }
  refuseOnSocket(
    socket,
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new HeadersTooLarge()
      : err.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
        ? new PayloadTooLarge()
        : new MalformedRequest(),
  );
}

/** A refusal written on the socket itself, where Node gives no response object; the socket is closed after it. */
function refuseOnSocket(socket: Socket, err: ApiError): void {
  const refusal = gatewayRefusal(err);
  const head = [
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}`,
    ...Object.entries({ ...refusal.headers, 'content-length': String(Buffer.byteLength(refusal.body)), connection: 'close' }).map(
      ([k, v]) => `${k}: ${v}`,
    ),
  ].join('\r\n');
  socket.end(`${head}\r\n\r\n${refusal.body}`);
}

/** A small HTTP server standing in for API Gateway in front of the same Lambda handlers. */
export async function startHttp(
  handlers: Handlers,
  port = 0,
  host = '127.0.0.1',
  pages: LocalPages = {},
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  // Node would answer an HTTP/1.1 request without Host with a bare 400 of its own; the handler below
  // refuses it in the envelope instead.
  const server = createServer({ requireHostHeader: false }, async (req, res) => {
    try {
      const bodiless = req.method === 'HEAD';
      const page = req.method === 'GET' || bodiless ? pages[new URL(req.url ?? '/', 'http://localhost').pathname] : undefined;
      if (page) {
        const { status, headers, body } = await page();
        res.writeHead(status, { ...headers, 'x-request-id': randomUUID() });
        res.end(bodiless ? undefined : body);
        return;
      }
      const body = await readBody(req);
      if (body === null) {
        const refusal = gatewayRefusal(new PayloadTooLarge());
        res.writeHead(refusal.status, { ...refusal.headers, connection: 'close' });
        res.end(refusal.body);
        return;
      }
      // API Gateway serves only the host names it knows; one that names no host at all is refused as
      // malformed, as RFC 9112 §3.2 asks, before it reaches a function that builds a URL from it.
      // So is an HTTP/1.1 request without one, or with two (§3.2 again).
      const hosts = req.rawHeaders.filter((_, i) => i % 2 === 0 && req.rawHeaders[i]?.toLowerCase() === 'host').length;
      const hostless = hosts === 0 && req.httpVersion !== '1.0';
      if (hosts > 1 || hostless || (req.headers.host !== undefined && !requestUrl(req.headers.host, '/'))) {
        const refusal = gatewayRefusal(new MalformedRequest(BAD_HOST));
        res.writeHead(refusal.status, refusal.headers);
        res.end(refusal.body);
        return;
      }
      const { event, target } = toApiGatewayEvent({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        rawHeaders: req.rawHeaders,
        body,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
      });
      const result = await handlers[target](event, lambdaContext(`geo-${target}`));
      res.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
      res.end(result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : (result.body ?? ''));
    } catch {
      // Mirrors API Gateway when the function itself crashes: a bare 500, nothing from inside.
      res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ message: 'Internal Server Error' }));
    }
  });
  server.on('clientError', answerClientError);
  // CONNECT asks for a tunnel, which Node hands over as a bare socket (closed unanswered without a
  // listener): refused as any method the API does not know is.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => refuseOnSocket(socket, new MalformedRequest()));
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return {
    server,
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
