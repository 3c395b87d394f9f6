import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Signer, verifySigned } from '../../support/sigv4.js';

/**
 * AWS itself, mocked at the SDK boundary only: small HTTP endpoints speaking the wire protocol of the
 * two calls the rehearsal needs, reached by the real SDK clients through the standard
 * AWS_ENDPOINT_URL_<SERVICE> variables. (DynamoDB is dynalite, a full implementation, behind a front
 * that checks signatures as DynamoDB does.)
 */

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  req.setEncoding('utf8');
  for await (const chunk of req) text += chunk;
  return text;
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    handler(req, res).catch((err: Error) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: err.message }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

export interface SecretsStandIn {
  endpoint: string;
  /** GetSecretValue calls answered, by secret id. */
  reads: string[];
  close(): Promise<void>;
}

/**
 * Secrets Manager's GetSecretValue (JSON 1.1 protocol: POST /, X-Amz-Target). `values` gives, per
 * secret ARN, the successive values of AWSCURRENT: a read past the last one returns the last one. Two
 * values model a rotation landing between two reads.
 */
export async function startSecretsManager(values: Record<string, string[]>): Promise<SecretsStandIn> {
  const reads: string[] = [];
  const { url, server } = await listen(async (req, res) => {
    const target = req.headers['x-amz-target'];
    const input = JSON.parse((await body(req)) || '{}') as { SecretId?: string };
    const versions = input.SecretId ? values[input.SecretId] : undefined;
    if (target !== 'secretsmanager.GetSecretValue' || !versions) {
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." }));
      return;
    }
    const n = reads.filter((r) => r === input.SecretId).length;
    reads.push(input.SecretId!);
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(
      JSON.stringify({
        ARN: input.SecretId,
        Name: input.SecretId!.split(':').pop(),
        SecretString: versions[Math.min(n, versions.length - 1)],
        VersionId: `v${Math.min(n, versions.length - 1)}`,
        VersionStages: ['AWSCURRENT'],
        CreatedDate: Date.now() / 1000,
      }),
    );
  });
  return { endpoint: url, reads, close: () => close(server) };
}

export interface LambdaStandIn {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * Lambda's Invoke (POST /2015-03-31/functions/<name>/invocations, RequestResponse): runs the named
 * function and answers its result, or X-Amz-Function-Error with {errorType, errorMessage} as Lambda does.
 */
export async function startLambda(
  run: (name: string, payload: unknown) => Promise<{ ok: boolean; result?: unknown; errorType?: string; errorMessage?: string }>,
): Promise<LambdaStandIn> {
  const { url, server } = await listen(async (req, res) => {
    const m = /^\/2015-03-31\/functions\/([^/]+)\/invocations/.exec(req.url ?? '');
    if (req.method !== 'POST' || !m) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ Type: 'User', message: 'Function not found' }));
      return;
    }
    const out = await run(decodeURIComponent(m[1]!), JSON.parse((await body(req)) || '{}'));
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' };
    if (!out.ok) headers['x-amz-function-error'] = 'Unhandled';
    res.writeHead(200, headers);
    res.end(JSON.stringify(out.ok ? (out.result ?? null) : { errorType: out.errorType, errorMessage: out.errorMessage }));
  });
  return { endpoint: url, close: () => close(server) };
}

export interface SignedFront {
  endpoint: string;
  /** Requests whose signature the check confirmed, forwarded upstream. */
  verified: number;
  /** The user-agent of each verified request: which client made it. */
  userAgents: string[];
  /** Why each other request was refused (403 InvalidSignatureException, as AWS answers). */
  refused: string[];
  close(): Promise<void>;
}

/**
 * DynamoDB's signature check in front of dynalite (which checks none): each request must be signed by the
 * function's credentials for the region and service, within 15 minutes of now, as test/support/sigv4.ts
 * checks it (written from the SigV4 specification, not with the SDK that signed it); then it goes to
 * dynalite as it came, and dynalite's answer comes back as it is.
 */
export async function startSignedFront(upstream: string, signer: Signer): Promise<SignedFront> {
  const state = { verified: 0, refused: [] as string[], userAgents: [] as string[] };
  const target = new URL(upstream);
  const { url, server } = await listen(async (req, res) => {
    const text = await body(req);
    const problem = verifySigned({ method: req.method ?? '', path: req.url ?? '/', headers: req.headers, body: text }, signer, new Date());
    if (problem) {
      state.refused.push(problem);
      res.writeHead(403, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-errortype': 'InvalidSignatureException' });
      res.end(JSON.stringify({ __type: 'com.amazon.coral.service#InvalidSignatureException', message: problem }));
      return;
    }
    state.verified += 1;
    state.userAgents.push(String(req.headers['user-agent'] ?? ''));
    await new Promise<void>((resolve, reject) => {
      const out = request(
        { hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res).on('finish', resolve);
        },
      );
      out.on('error', reject);
      out.end(text);
    });
  });
  return {
    endpoint: url,
    get verified() {
      return state.verified;
    },
    refused: state.refused,
    userAgents: state.userAgents,
    close: () => close(server),
  };
}
