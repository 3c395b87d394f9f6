import { createHash, randomInt } from 'node:crypto';

export const SECRET_PREFIX = 'geo_live_';

/** What a key may reach: the whole workspace, one brand's analyses, or one analysis. */
export const KEY_SCOPES = ['workspace', 'brand', 'analysis'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 40;
/** Characters of the secret kept in clear so a person can tell keys apart. */
export const VISIBLE_PREFIX_LENGTH = 12;

/** A fresh secret: geo_live_ + 40 base62 characters (~238 bits). */
export function newSecret(random: (max: number) => number = randomInt): string {
  let body = '';
  for (let i = 0; i < BODY_LENGTH; i += 1) body += ALPHABET[random(ALPHABET.length)];
  return SECRET_PREFIX + body;
}

/** The only trace of a secret that is ever stored: SHA-256, lower-case hex. */
export function fingerprint(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function visiblePrefix(secret: string): string {
  return secret.slice(0, VISIBLE_PREFIX_LENGTH);
}

/** Well-formed secrets only; anything else is refused before the database is asked. */
export const SECRET_PATTERN = /^geo_live_[0-9A-Za-z]{32,128}$/;
