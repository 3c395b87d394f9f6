import { createHash, createHmac } from 'node:crypto';

/**
 * AWS Signature Version 4 for a request signed in its headers (the form DynamoDB's JSON protocol
 * takes): https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
 *
 * The service signs two things: the budget counter's POST to `/` (signed in its headers, no query), and
 * the RDS IAM authentication token (a presigned GET of `/`, signed in its query). test/unit/sigv4.test.ts
 * checks both against AWS's published example and against the AWS SDK's own signer and RDS signer.
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

const ALGORITHM = 'AWS4-HMAC-SHA256';
const sha256 = (data: string): string => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/**
 * The signing key depends on the secret, the day, the region and the service only: one derivation (four
 * HMACs) per day and service per process instead of one per request.
 */
const keys = new Map<string, Buffer>();
function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  const id = `${secret}\n${day}\n${region}\n${service}`;
  let key = keys.get(id);
  if (!key) {
    if (keys.size >= 8) keys.clear();
    key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
    keys.set(id, key);
  }
  return key;
}

/** YYYYMMDD'T'HHMMSS'Z', the form SigV4 dates take. */
const amzDateOf = (now: Date): string =>
  now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

function signature(secret: string, amzDate: string, region: string, service: string, canonicalRequest: string): string {
  const scope = `${amzDate.slice(0, 8)}/${region}/${service}/aws4_request`;
  const stringToSign = [ALGORITHM, amzDate, scope, sha256(canonicalRequest)].join('\n');
  return createHmac('sha256', signingKey(secret, amzDate.slice(0, 8), region, service))
    .update(stringToSign, 'utf8')
    .digest('hex');
}

/** The request's headers with `host`, `x-amz-date`, `x-amz-security-token` (if any) and `authorization` added. */
export function signedHeaders(input: SignInput): Record<string, string> {
  const amzDate = amzDateOf(input.now);
  const headers: Record<string, string> = { ...input.headers, host: input.host, 'x-amz-date': amzDate };
  if (input.credentials.sessionToken) headers['x-amz-security-token'] = input.credentials.sessionToken;
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((n) => `${n}:${String(headers[n]).trim().replace(/\s+/g, ' ')}\n`).join('');
  const signed = names.join(';');
  const canonicalRequest = [input.method, '/', '', canonicalHeaders, signed, sha256(input.body)].join('\n');
  const sig = signature(input.credentials.secretAccessKey, amzDate, input.region, input.service, canonicalRequest);
  const scope = `${amzDate.slice(0, 8)}/${input.region}/${input.service}/aws4_request`;
  headers.authorization = `${ALGORITHM} Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signed}, Signature=${sig}`;
  return headers;
}

/** RFC 3986 unreserved characters stay, everything else is percent-encoded (SigV4's UriEncode). */
const uriEncode = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export interface RdsTokenInput {
  hostname: string;
  port: number;
  user: string;
  region: string;
  credentials: Credentials;
  now: Date;
}

/**
 * The password of an IAM database login through RDS Proxy: a presigned `GET https://host:port/?Action=connect
 * &DBUser=user`, service rds-db, valid 15 minutes, without its scheme (what @aws-sdk/rds-signer returns):
 * https://docs.aws.amazon.com/AmazonRDS/latest/UserGuide/UsingWithRDS.IAMDBAuth.Connecting.html
 */
export function rdsAuthToken(input: RdsTokenInput): string {
  const amzDate = amzDateOf(input.now);
  const host = `${input.hostname}:${input.port}`;
  const scope = `${amzDate.slice(0, 8)}/${input.region}/rds-db/aws4_request`;
  const params: Record<string, string> = {
    Action: 'connect',
    DBUser: input.user,
    'X-Amz-Algorithm': ALGORITHM,
    'X-Amz-Credential': `${input.credentials.accessKeyId}/${scope}`,
    'X-Amz-Date': amzDate,
    'X-Amz-Expires': '900',
    'X-Amz-SignedHeaders': 'host',
    ...(input.credentials.sessionToken ? { 'X-Amz-Security-Token': input.credentials.sessionToken } : {}),
  };
  const query = Object.entries(params)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`)
    .join('&');
  const canonicalRequest = ['GET', '/', query, `host:${host}\n`, 'host', sha256('')].join('\n');
  const sig = signature(input.credentials.secretAccessKey, amzDate, input.region, 'rds-db', canonicalRequest);
  return `${host}/?${query}&X-Amz-Signature=${sig}`;
}
