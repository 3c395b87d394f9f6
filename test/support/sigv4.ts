import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Checks a header-signed AWS request the way an AWS service does: the canonical request is rebuilt from
 * what arrived (method, path, query, the headers the request says it signed, the body), signed again with
 * the expected credentials at the time the request states, and the two signatures must be equal.
 * Written from the SigV4 specification
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html), independent of the
 * AWS SDK whose requests it checks; test/unit/store/budget.test.ts checks it on AWS's published example.
 */

export interface ReceivedRequest {
  method: string;
  /** As on the wire: path and query, percent-encoded. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface Signer {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  region: string;
  service: string;
}

const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const header = (req: ReceivedRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
};

/** The canonical request of SigV4 for a service other than S3 (each path segment encoded once more). */
export function canonicalRequest(req: ReceivedRequest, signedNames: string[]): string {
  const [path = '/', query = ''] = req.path.split('?');
  const canonicalPath = path
    .split('/')
    .map((segment) => rfc3986(segment))
    .join('/');
  const canonicalQuery = [...new URLSearchParams(query).entries()]
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalHeaders = signedNames.map((n) => `${n}:${(header(req, n) ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  return [req.method, canonicalPath, canonicalQuery, canonicalHeaders, signedNames.join(';'), sha256(req.body)].join('\n');
}

/**
 * Null when the request is signed by `signer` for its region and service (and, given `now`, signed
 * within 15 minutes of it, as AWS allows), else why not.
 */
export function verifySigned(req: ReceivedRequest, signer: Signer, now?: Date): string | null {
  const given = header(req, 'authorization');
  if (!given) return 'no Authorization header';
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      given,
    );
  if (!m) return 'not a SigV4 Authorization header';
  const [, keyId, day, region, service, signedList, signature] = m as unknown as string[];
  if (keyId !== signer.accessKeyId) return 'unknown access key';
  if (region !== signer.region || service !== signer.service) return `not scoped to ${signer.region}/${signer.service}`;
  const signedNames = (signedList as string).split(';');
  if (signedNames.join(';') !== [...signedNames].sort().join(';') || signedNames.some((n) => n !== n.toLowerCase()))
    return 'signed headers are not in canonical order';
  if (!signedNames.includes('host') || !signedNames.includes('x-amz-date')) return 'host and x-amz-date are not signed';
  for (const name of signedNames) if (header(req, name) === undefined) return `signed header ${name} is missing`;
  if (signer.sessionToken !== undefined) {
    if (!signedNames.includes('x-amz-security-token')) return 'the session token is not signed';
    if (header(req, 'x-amz-security-token') !== signer.sessionToken) return 'session token mismatch';
  }
  const amzDate = header(req, 'x-amz-date') as string;
  if (!/^\d{8}T\d{6}Z$/.test(amzDate) || !amzDate.startsWith(day as string)) return 'bad x-amz-date';
  if (now) {
    const at = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
    if (Math.abs(now.getTime() - at) > 15 * 60_000) return 'signed too far from now';
  }
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest(req, signedNames))].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${signer.secretAccessKey}`, day as string), region as string), service as string), 'aws4_request');
  const expected = Buffer.from(createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex'));
  const got = Buffer.from(signature as string);
  return got.length === expected.length && timingSafeEqual(got, expected) ? null : 'signature does not match';
}
