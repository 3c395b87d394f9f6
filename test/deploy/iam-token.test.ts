import { Signer } from '@aws-sdk/rds-signer';
import { describe, expect, test } from '@jest/globals';
import { verifyIamToken } from './support/iam-token.js';

/** The rehearsal's proxy stand-in accepts a login only on this check: it must refuse what RDS refuses. */
describe('IAM token check of the RDS Proxy stand-in', () => {
  const credentials = {
    accessKeyId: 'ASIAEXAMPLE000000001',
    secretAccessKey: 'rehearsal-secret-key',
    sessionToken: 'session/token+with=odd chars',
  };
  const want = { hostPort: '127.80.1.2:5432', user: 'geo_reader', region: 'eu-west-1', ...credentials };
  const token = (
    over: Partial<{ hostname: string; port: number; username: string; region: string; secretAccessKey: string; sessionToken: string }> = {},
  ) =>
    new Signer({
      hostname: over.hostname ?? '127.80.1.2',
      port: over.port ?? 5432,
      username: over.username ?? 'geo_reader',
      region: over.region ?? 'eu-west-1',
      credentials: {
        ...credentials,
        ...(over.secretAccessKey ? { secretAccessKey: over.secretAccessKey } : {}),
        ...(over.sessionToken ? { sessionToken: over.sessionToken } : {}),
      },
    }).getAuthToken();

  test('accepts the token @aws-sdk/rds-signer makes for this endpoint and user', async () => {
    expect(verifyIamToken(await token(), want)).toBeNull();
  });

  test('refuses another signing key, endpoint, port, user, region or session; an altered or expired token', async () => {
    expect(verifyIamToken(await token({ secretAccessKey: 'another-secret' }), want)).toBe('signature does not match');
    expect(verifyIamToken(await token({ hostname: '127.80.1.3' }), want)).toMatch(/signed for 127.80.1.3:5432/);
    expect(verifyIamToken(await token({ port: 5433 }), want)).toMatch(/signed for/);
    expect(verifyIamToken(await token({ username: 'postgres' }), want)).toMatch(/DBUser postgres/);
    expect(verifyIamToken(await token({ region: 'us-east-1' }), want)).toMatch(/scope/);
    expect(verifyIamToken(await token({ sessionToken: 'other' }), want)).toBe('session token mismatch');
    const good = await token();
    expect(verifyIamToken(good.replace('Action=connect', 'Action=connect&DBUser2=x'), want)).toBe('signature does not match');
    expect(verifyIamToken(good, { ...want, now: new Date(Date.now() + 16 * 60_000) })).toMatch(/expired/);
    expect(verifyIamToken('not a token', want)).toBe('not a presigned URL');
  });
});
