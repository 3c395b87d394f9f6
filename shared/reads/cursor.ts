import { createHmac, timingSafeEqual } from 'node:crypto';
import { CursorExpired, InvalidRequest } from '../errors.js';

/** What a cursor is bound to: replayed under anything else it is expired, not silently reinterpreted. */
export interface CursorBinding {
  read: string;
  analysis: string | null;
  key: string;
  window: string;
}

const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64url');

function sign(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest().subarray(0, 18);
}

/** Opaque, signed: base64url(JSON) + '.' + base64url(HMAC-SHA256, 144 bits). */
export function encodeCursor(secret: string, binding: CursorBinding, position: unknown): string {
  const payload = b64(JSON.stringify({ v: 1, ...binding, p: position }));
  return `${payload}.${b64(sign(secret, payload))}`;
}

const bad = () => new InvalidRequest('The cursor is not one this API produced, or it was altered.', 'cursor');

export function decodeCursor(secret: string, token: string, binding: CursorBinding): unknown {
  const [payload, mac, extra] = token.split('.');
  if (!payload || !mac || extra !== undefined) throw bad();
  // Compare the encoded text, not decoded bytes: base64 decoding tolerates trailing junk.
  const expected = Buffer.from(b64(sign(secret, payload)));
  const given = Buffer.from(mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    throw bad();
  }
  if (body.v !== 1) throw bad();
  const same = (['read', 'analysis', 'key', 'window'] as const).every((k) => body[k] === binding[k]);
  if (!same) throw new CursorExpired();
  return body.p;
}
