import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Verifies an RDS IAM authentication token the way the RDS side checks it: a SigV4 presigned URL for
 * `GET https://<host>:<port>/?Action=connect&DBUser=<user>`, service `rds-db`, signed header `host`,
 * empty payload. Written from the SigV4 specification, independent of the SDK that made the token, and
 * checked with the same (fake) credentials the function was given, as RDS checks it with the real ones.
 */

export interface TokenExpectation {
  /** `<DB_HOST>:<DB_PORT>`, as the function was configured. */
  hostPort: string;
  user: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  now?: Date;
}

const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** Returns null when the token is valid, else the reason it is not. */
export function verifyIamToken(token: string, want: TokenExpectation): string | null {
  const slash = token.indexOf('/?');
  if (slash < 0) return 'not a presigned URL';
  const hostPort = token.slice(0, slash);
  if (hostPort !== want.hostPort) return `signed for ${hostPort}, not ${want.hostPort}`;
  const query = new URLSearchParams(token.slice(slash + 2));
  const get = (k: string) => query.get(k) ?? '';
  if (get('Action') !== 'connect') return 'Action is not connect';
  if (get('DBUser') !== want.user) return `DBUser ${get('DBUser')} is not ${want.user}`;
  if (get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return 'not SigV4';
  if (get('X-Amz-SignedHeaders') !== 'host') return 'signed headers are not exactly host';
  const [keyId, date, region, service, terminator] = get('X-Amz-Credential').split('/');
  if (keyId !== want.accessKeyId) return 'unknown access key';
  if (region !== want.region || service !== 'rds-db' || terminator !== 'aws4_request')
    return `scope ${date}/${region}/${service} is not ${want.region}/rds-db`;
  if ((want.sessionToken ?? '') !== get('X-Amz-Security-Token')) return 'session token mismatch';
  const amzDate = get('X-Amz-Date');
  const signedAt = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  const expires = Number(get('X-Amz-Expires'));
  const now = (want.now ?? new Date()).getTime();
  if (!Number.isFinite(signedAt) || !amzDate.startsWith(date ?? '-')) return 'bad X-Amz-Date';
  if (!(expires > 0 && expires <= 900)) return 'an RDS token lives at most 15 minutes';
  if (now > signedAt + expires * 1000 || signedAt > now + 5 * 60_000) return 'token expired or from the future';

  const canonicalQuery = [...query.entries()]
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalRequest = ['GET', '/', canonicalQuery, `host:${hostPort}\n`, 'host', sha256('')].join('\n');
  const scope = `${date}/${region}/rds-db/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${want.secretAccessKey}`, date!), region!), 'rds-db'), 'aws4_request');
  const expected = Buffer.from(createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex'));
  const given = Buffer.from(get('X-Amz-Signature'));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'signature does not match';
  return null;
}
