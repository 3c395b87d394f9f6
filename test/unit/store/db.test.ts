import { afterEach, describe, expect, test } from '@jest/globals';
import type pg from 'pg';
import { parseConfig } from '#shared/config/service.js';
import { createPool } from '#shared/store/db.js';
import { classifyStoreError } from '#shared/store/faults.js';
import { verifyIamToken } from '../../deploy/support/iam-token.js';
import { creds, lambdaCredentials, withLambdaCredentials } from './fixtures.js';

/**
 * The RDS IAM token, made by the AWS SDK with the credentials Lambda puts in the environment. What RDS
 * would refuse cannot be seen here, so the token is checked by a verifier written from the SigV4
 * specification, as RDS checks it.
 */

withLambdaCredentials();

describe('the RDS IAM token (the password of a login through RDS Proxy)', () => {
  const iamConfig = () =>
    parseConfig({
      CURSOR_SECRET: 'x'.repeat(32),
      DB_HOST: 'geo-proxy.proxy-abc.eu-west-1.rds.amazonaws.com',
      DB_IAM_AUTH: 'true',
      AWS_REGION: 'eu-west-1',
    });
  let pool: pg.Pool | undefined;
  afterEach(async () => {
    await pool?.end();
    pool = undefined;
  });
  const password = (p: pg.Pool) => (p.options.password as () => Promise<string>)();
  const want = { hostPort: 'geo-proxy.proxy-abc.eu-west-1.rds.amazonaws.com:5432', user: 'geo_reader', region: 'eu-west-1', ...creds };

  test("made from the role's credentials in the environment for the proxy's endpoint and user: RDS's check accepts it", async () => {
    pool = createPool(iamConfig());
    const token = await password(pool);
    expect(verifyIamToken(token, want)).toBeNull();
    expect(verifyIamToken(token, { ...want, secretAccessKey: 'other' })).toBe('signature does not match');
    expect(verifyIamToken(token, { ...want, user: 'postgres' })).toMatch(/DBUser/);
  });

  test('a fresh token for each login: the credentials are read again from the environment', async () => {
    pool = createPool(iamConfig());
    const first = await password(pool);
    process.env.AWS_SESSION_TOKEN = 'rotated-session-token';
    const second = await password(pool);
    const sessionOf = (t: string) => new URLSearchParams(t.slice(t.indexOf('/?') + 2)).get('X-Amz-Security-Token');
    expect(sessionOf(first)).toBe(creds.sessionToken);
    expect(sessionOf(second)).toBe('rotated-session-token');
    expect(verifyIamToken(second, { ...want, sessionToken: 'rotated-session-token' })).toBeNull();
  });

  test('without credentials in the environment no token is made: the login fails naming what is missing, nothing of the SDK', async () => {
    lambdaCredentials(false);
    pool = createPool(iamConfig());
    await expect(password(pool)).rejects.toThrow(
      /^DB_IAM_AUTH: no AWS credentials in the environment \(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY\)$/,
    );
    // An uncoded failure at login is a configuration fault: 500 internal_error (docs/errors.md#faults).
    expect(classifyStoreError(await password(pool).catch((e) => e), 'connect')).toBe('configuration');
  });
});
