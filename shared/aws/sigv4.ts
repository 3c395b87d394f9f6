import { createHash, createHmac } from 'node:crypto';

/**
 * AWS Signature Version 4 for a request signed in its headers (the form DynamoDB's JSON protocol
 * takes): https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
 *
 * The service signs one kind of request, a POST to `/` with no query string, so the canonical URI and
 * query need no encoding rules. test/unit/sigv4.test.ts checks the result against AWS's published
 * example and against the AWS SDK's own signer on the very request the budget counter sends.
 */

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface SignInput {
  method: 'POST';
  host: string;
  /** Headers to sign besides host and the x-amz-* ones added here; names in lower case. */
  headers: Record<string, string>;
  body: string;
  region: string;
  service: string;
  credentials: Credentials;
  now: Date;
}

const sha256 = (data: string): string => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/**
 * The signing key depends on the secret, the day, the region and the service only: one derivation (four
 * HMACs) per day per process instead of one per call.
 */
let cachedKey: { id: string; key: Buffer } | undefined;
function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  const id = `${secret}\n${day}\n${region}\n${service}`;
  if (cachedKey?.id !== id) cachedKey = { id, key: hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request') };
  return cachedKey.key;
}

/** The request's headers with `host`, `x-amz-date`, `x-amz-security-token` (if any) and `authorization` added. */
export function signedHeaders(input: SignInput): Record<string, string> {
  const amzDate = input.now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = { ...input.headers, host: input.host, 'x-amz-date': amzDate };
  if (input.credentials.sessionToken) headers['x-amz-security-token'] = input.credentials.sessionToken;
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((n) => `${n}:${String(headers[n]).trim().replace(/\s+/g, ' ')}\n`).join('');
  const signed = names.join(';');
  const canonicalRequest = [input.method, '/', '', canonicalHeaders, signed, sha256(input.body)].join('\n');
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', signingKey(input.credentials.secretAccessKey, day, input.region, input.service))
    .update(stringToSign, 'utf8')
    .digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signed}, Signature=${signature}`;
  return headers;
}
