import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * Checks a header-signed AWS request with the AWS SDK's own signer (@smithy/signature-v4), independent
 * of shared/aws/sigv4.ts: the headers the request says it signed are signed again, with the same
 * credentials, at the time the request states, and the two Authorization values must be equal.
 */

const bytes = (d: string | ArrayBuffer | ArrayBufferView): string | Uint8Array =>
  typeof d === 'string' ? d : d instanceof ArrayBuffer ? new Uint8Array(d) : new Uint8Array(d.buffer, d.byteOffset, d.byteLength);

/** The hash class the SDK's signer takes: SHA-256, or HMAC-SHA-256 when given a key. */
class Sha256 {
  private h;
  constructor(private readonly secret?: string | ArrayBuffer | ArrayBufferView) {
    this.h = this.fresh();
  }
  private fresh() {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(this.secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.h.update(bytes(data));
  }
  reset(): void {
    this.h = this.fresh();
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.h.digest());
  }
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface Signer {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  region: string;
  service: string;
}

/** The Authorization value the SDK computes for the request's signed headers; null when the request has none. */
export async function sdkAuthorization(req: ReceivedRequest, signer: Signer): Promise<string | null> {
  const auth = req.headers.authorization ?? '';
  const signedNames = /SignedHeaders=([^,]+)/.exec(auth)?.[1]?.split(';');
  const amzDate = req.headers['x-amz-date'];
  if (!signedNames || !amzDate) return null;
  const headers: Record<string, string> = {};
  for (const name of signedNames) headers[name] = req.headers[name] ?? '';
  const sdk = new SignatureV4({
    credentials: { accessKeyId: signer.accessKeyId, secretAccessKey: signer.secretAccessKey, sessionToken: signer.sessionToken },
    region: signer.region,
    service: signer.service,
    sha256: Sha256,
    applyChecksum: false,
  });
  const at = new Date(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  const [path, query = ''] = req.path.split('?');
  const signed = await sdk.sign(
    {
      method: req.method,
      protocol: 'https:',
      hostname: headers.host ?? '',
      path: path!,
      query: Object.fromEntries(new URLSearchParams(query)),
      headers,
      body: req.body,
    },
    { signingDate: at, unsignableHeaders: new Set(), signableHeaders: new Set(signedNames) },
  );
  return (signed.headers as Record<string, string>).authorization ?? null;
}

/** Null when the request is signed by `signer` for its region and service, else why not. */
export async function verifySigned(req: ReceivedRequest, signer: Signer): Promise<string | null> {
  const given = req.headers.authorization;
  if (!given) return 'no Authorization header';
  if (!given.includes(`/${signer.region}/${signer.service}/aws4_request`)) return `not scoped to ${signer.region}/${signer.service}`;
  if (!/SignedHeaders=[^,]*\bhost\b/.test(given) || !/SignedHeaders=[^,]*\bx-amz-date\b/.test(given))
    return 'host and x-amz-date are not signed';
  if (signer.sessionToken && !/SignedHeaders=[^,]*\bx-amz-security-token\b/.test(given)) return 'the session token is not signed';
  const expected = await sdkAuthorization(req, signer);
  return expected === given ? null : `signature does not match (SDK: ${expected})`;
}
