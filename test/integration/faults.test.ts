import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { LocalApi } from '../../local/stack.js';
import type { LocalStore } from '../../local/stores.js';
import { call, expectError, startTestApi } from '../support/api.js';
import { captureLogLines } from '../support/capture.js';
import { startOwnEmbeddedStore } from '../support/own-store.js';

describe('an unexpected fault in a read: 500 internal_error, logged in full, shown to nobody', () => {
  let store: LocalStore;
  let api: LocalApi;
  beforeAll(async () => {
    // A real fault, not a mock: the service role loses its read on one table the analysis read needs.
    store = await startOwnEmbeddedStore((db) => db.query('REVOKE SELECT ON competitors FROM geo_reader').then(() => undefined));
    api = await startTestApi({ DATABASE_URL: store.readerUrl, LOG_LEVEL: 'INFO' });
  });
  afterAll(async () => {
    await api.close();
    await store.close();
  });

  test('the body holds no stack, SQL or internal message; the log holds the error with the request id', async () => {
    let reply!: Awaited<ReturnType<typeof call>>;
    const logged = await captureLogLines(async () => {
      reply = await call(api, `/analyses/${store.manifest!.analyses.collected}`, store.manifest!.keys.workspace);
    });
    expectError(reply, 500, 'internal_error', { budget: true });
    expect(reply.text).not.toMatch(/permission|competitors|SELECT|at .*\.ts|stack/i);
    const requestId = reply.body.error.request_id as string;
    const mine = logged.filter((l) => l.request_id === requestId);
    // A missing grant is a configuration fault: logged with its SQLSTATE and message, not as a code defect.
    const fault = mine.find((l) => l.message === 'fault');
    expect(fault?.level).toBe('ERROR');
    expect(fault?.cause).toMatchObject({ fault: 'configuration', phase: 'query', sqlstate: '42501' });
    expect(fault?.cause?.message).toMatch(/permission denied for table competitors/);
    expect(mine.find((l) => l.message === 'request')?.error_code).toBe('internal_error');
  });
});
