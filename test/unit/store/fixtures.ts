import { afterAll, beforeEach } from '@jest/globals';

/**
 * The credentials Lambda puts in a function's environment, fake, shared by the tests of the two AWS
 * requests the stores make (the budget counter's UpdateItem, the RDS IAM token): what the SDK signs with
 * is what the tests verify the signature with.
 */
export const creds = {
  accessKeyId: 'ASIAUNITTEST00000001',
  secretAccessKey: 'c2VjcmV0LWtleS1mb3ItdGhlLXVuaXQtdGVzdA',
  sessionToken: 'FwoGZXIvYXdzEJr//////////session+token/with=padding',
};
const ENV_NAMES = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'] as const;

/** The environment Lambda gives the function: its role's credentials, or none. */
export function lambdaCredentials(on: boolean): void {
  const values = {
    AWS_ACCESS_KEY_ID: creds.accessKeyId,
    AWS_SECRET_ACCESS_KEY: creds.secretAccessKey,
    AWS_SESSION_TOKEN: creds.sessionToken,
  };
  for (const n of ENV_NAMES) {
    if (on) process.env[n] = values[n];
    else delete process.env[n];
  }
}

/** For the file that calls it: the credentials in the environment before each test, the environment as it was after the last. */
export function withLambdaCredentials(): void {
  const saved = Object.fromEntries(ENV_NAMES.map((n) => [n, process.env[n]]));
  beforeEach(() => lambdaCredentials(true));
  afterAll(() => {
    for (const n of ENV_NAMES) {
      if (saved[n] === undefined) delete process.env[n];
      else process.env[n] = saved[n];
    }
  });
}
