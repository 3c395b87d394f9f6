import type { ClientRequest, IncomingMessage } from 'node:http';
import { http, https as tls } from '../builtins.js';
import { type Credentials, signedHeaders } from './sigv4.js';

/**
 * DynamoDB's JSON 1.0 protocol for the one operation the service sends (UpdateItem), over a
 * keep-alive connection, signed with SigV4. Why not the AWS SDK's DynamoDBClient: measured in issue 13,
 * its middleware stack (serde, endpoint rules, retry and user-agent plumbing) cost several times the CPU
 * of the request itself, more than the rest of a call's own work together, and a sizeable part of every
 * cold start (docs/performance.md). The protocol:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.LowLevelAPI.html
 */

/** An error answer of DynamoDB: its type (`ConditionalCheckFailedException`...), HTTP status and message. */
export class DynamoDbError extends Error {
  constructor(
    readonly type: string,
    readonly httpStatus: number,
    message: string,
  ) {
    super(message);
    this.name = type;
  }
}

export interface DynamoDbOptions {
  /** `https://dynamodb.<region>.amazonaws.com`, or a local/stand-in endpoint. */
  endpoint: string;
  region: string;
  /** Asked at each call; undefined: none available (the call is refused, never sent unsigned). */
  credentials: () => Credentials | undefined;
  /** The whole exchange (connection, request, answer) is abandoned past this. */
  timeoutMs: number;
}

export interface DynamoDb {
  send(operation: 'UpdateItem', input: unknown): Promise<unknown>;
  destroy(): void;
}

/** A DynamoDB answer is a few hundred bytes; anything far larger is not one, and is not buffered. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** The error type of an answer: the x-amzn-errortype header, else `__type` of the body, without namespace. */
function errorType(res: IncomingMessage, body: Record<string, unknown> | undefined): string {
  const header = res.headers['x-amzn-errortype'];
  const raw = (typeof header === 'string' && header) || (typeof body?.__type === 'string' && body.__type) || `HTTP ${res.statusCode}`;
  const colon = raw.indexOf(':');
  const head = colon < 0 ? raw : raw.slice(0, colon);
  return head.slice(head.lastIndexOf('#') + 1);
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function createDynamoDb(opts: DynamoDbOptions): DynamoDb {
  const url = new URL(opts.endpoint);
  const secure = url.protocol === 'https:';
  const agent = secure ? new tls.Agent({ keepAlive: true, maxSockets: 50 }) : new http.Agent({ keepAlive: true, maxSockets: 50 });
  const request = secure ? tls.request : http.request;
  const host = url.host;
  const path = url.pathname === '' ? '/' : url.pathname;

  return {
    send(operation, input) {
      const credentials = opts.credentials();
      if (!credentials)
        return Promise.reject(new Error('no AWS credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)'));
      const body = JSON.stringify(input);
      const headers = signedHeaders({
        method: 'POST',
        host,
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${operation}` },
        body,
        region: opts.region,
        service: 'dynamodb',
        credentials,
        now: new Date(),
      });
      return new Promise((resolve, reject) => {
        let settled = false;
        let req: ClientRequest | undefined;
        const settle = (err: Error | undefined, value?: unknown) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          if (err) reject(err);
          else resolve(value);
        };
        // Timers run before I/O callbacks in a turn of the event loop: after the loop was busy (a local
        // store computing in process), an answer already received would lose to its own timer. One more
        // turn (setImmediate runs after I/O) lets it be read first; a late answer still loses.
        const timer = setTimeout(
          () =>
            setImmediate(() => {
              if (settled) return;
              const err = new Error(`no answer within ${opts.timeoutMs} ms`);
              err.name = 'TimeoutError';
              req?.destroy(err);
              settle(err);
            }),
          opts.timeoutMs,
        );
        const attempt = (mayRetry: boolean) => {
          const current = request({
            hostname: url.hostname,
            port: url.port,
            path,
            method: 'POST',
            agent,
            headers: { ...headers, 'content-length': Buffer.byteLength(body) },
          });
          req = current;
          let answered = false;
          current.on('error', (err: NodeJS.ErrnoException) => {
            // A keep-alive connection the server closed while it sat idle (a Lambda frozen between calls
            // finds them so): the request never reached the counter, so it goes once more on a new
            // connection, as Node's documentation of request.reusedSocket advises. Any other failure is final.
            if (mayRetry && !answered && !settled && current.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE'))
              attempt(false);
            else settle(err);
          });
          current.on('response', (res) => {
            answered = true;
            const chunks: Buffer[] = [];
            let size = 0;
            res.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
              else {
                const err = new Error(`an answer of over ${MAX_ANSWER_BYTES} bytes is not DynamoDB's`);
                current.destroy(err);
                settle(err);
              }
            });
            res.on('error', (err) => settle(err));
            // A connection cut in the middle of the answer ends here without 'end'.
            res.on('close', () => settle(new Error('the connection closed before the whole answer arrived')));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              const parsed = parse(text);
              if (res.statusCode === 200) {
                if (parsed) settle(undefined, parsed);
                else settle(new Error('the counter answered 200 with a body that is not a JSON object'));
                return;
              }
              const message = parsed?.message ?? parsed?.Message;
              settle(
                new DynamoDbError(errorType(res, parsed), res.statusCode ?? 0, typeof message === 'string' ? message : text.slice(0, 200)),
              );
            });
          });
          current.end(body);
        };
        attempt(true);
      });
    },
    destroy() {
      agent.destroy();
    },
  };
}
