/**
 * authenticate alone on a bare middy chain, the call put on the context by an inline `before` and the
 * caller lookup a fake function. Without a well-formed `Authorization: Bearer geo_live_...` it refuses
 * with Unauthorized and never asks the lookup; with one, it asks the lookup with the key's SHA-256
 * fingerprint (computed here with node:crypto), puts the caller on the call and records how long the
 * lookup took; a refusal of the lookup's own (unknown, revoked key, no plan) reaches the caller as it is.
 * Its reading of the header, `bearerSecret`, is also tested alone on header values at its limits.
 */
import { createHash } from 'node:crypto';
import { describe, expect, jest, test } from '@jest/globals';
import middy from '@middy/core';
import { KeyRevoked, Unauthorized } from '#shared/errors.js';
import { authenticateMiddleware, bearerSecret } from '#shared/middleware/authenticate.js';
import type { Call, CallContext } from '#shared/middleware/call-state.js';
import type { Event, Result } from '#shared/middleware/response.js';
import type { Caller } from '#shared/store/caller.js';
import { apiEvent, fakeCaller, lambdaContext, newCall, rejectionOf, withCall } from './fixtures.js';

const SECRET = `geo_live_${'Ab3'.repeat(14)}`;
const FINGERPRINT = createHash('sha256').update(SECRET, 'utf8').digest('hex');
const served: Result = { statusCode: 200, headers: {}, body: '{"ok":true}' };

function chain(call: Call, lookup: (fp: string) => Promise<Caller>) {
  return middy<Event, Result, Error, CallContext>()
    .before(withCall(call))
    .use(authenticateMiddleware({ lookup }))
    .handler(async () => served);
}

describe('authenticate', () => {
  test('no Authorization header: Unauthorized, the lookup is not asked', async () => {
    const lookup = jest.fn(async (_fp: string) => fakeCaller());
    const call = newCall();
    const err = await rejectionOf(chain(call, lookup)(apiEvent(), lambdaContext()));
    expect(err).toBeInstanceOf(Unauthorized);
    expect(err).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(lookup).not.toHaveBeenCalled();
    expect(call.caller).toBeUndefined();
  });

  test.each([
    ['another scheme', `Basic ${SECRET}`],
    ['no scheme', SECRET],
    ['a secret without the geo_live_ prefix', `Bearer ${'Ab3'.repeat(14)}`],
    ['a secret too short', 'Bearer geo_live_abc123'],
    ['a secret with a character outside base62', `Bearer ${SECRET.slice(0, -1)}-`],
    ['two spaces after the scheme', `Bearer  ${SECRET}`],
    ['a trailing space', `Bearer ${SECRET} `],
    ['two headers joined by API Gateway', `Bearer ${SECRET},Bearer ${SECRET}`],
    ['an empty value', ''],
  ])('malformed Authorization (%s): Unauthorized, the lookup is not asked', async (_case, value) => {
    const lookup = jest.fn(async (_fp: string) => fakeCaller());
    const err = await rejectionOf(chain(newCall(), lookup)(apiEvent({ authorization: value }), lambdaContext()));
    expect(err).toBeInstanceOf(Unauthorized);
    expect(lookup).not.toHaveBeenCalled();
  });

  test('a well-formed key: the lookup is asked once, with the SHA-256 fingerprint of the secret', async () => {
    const lookup = jest.fn(async (_fp: string) => fakeCaller());
    await chain(newCall(), lookup)(apiEvent({ authorization: `Bearer ${SECRET}` }), lambdaContext());
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(lookup).toHaveBeenCalledWith(FINGERPRINT);
  });

  test('the secret itself never reaches the lookup', async () => {
    const lookup = jest.fn(async (_fp: string) => fakeCaller());
    await chain(newCall(), lookup)(apiEvent({ authorization: `Bearer ${SECRET}` }), lambdaContext());
    expect(JSON.stringify(lookup.mock.calls)).not.toContain(SECRET);
  });

  test('a well-formed key: the caller the lookup returned is on the call, and the handler runs', async () => {
    const caller = fakeCaller();
    const call = newCall();
    const response = await chain(call, async () => caller)(apiEvent({ authorization: `Bearer ${SECRET}` }), lambdaContext());
    expect(call.caller).toBe(caller);
    expect(response).toEqual(served);
  });

  test('the time the lookup took is recorded as timings.caller', async () => {
    const call = newCall();
    const slowLookup = async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return fakeCaller();
    };
    await chain(call, slowLookup)(apiEvent({ authorization: `Bearer ${SECRET}` }), lambdaContext());
    expect(call.timings.caller).toBeGreaterThanOrEqual(25);
    expect(call.timings.caller).toBeLessThan(5_000);
  });

  test.each(['bearer', 'BEARER', 'bEaReR'])('the scheme is case-insensitive: %s', async (scheme) => {
    const lookup = jest.fn(async (_fp: string) => fakeCaller());
    await chain(newCall(), lookup)(apiEvent({ authorization: `${scheme} ${SECRET}` }), lambdaContext());
    expect(lookup).toHaveBeenCalledWith(FINGERPRINT);
  });

  test('the secret is not case-insensitive: another case is another fingerprint', async () => {
    const lookup = jest.fn(async (_fp: string) => fakeCaller());
    const other = `geo_live_${'aB3'.repeat(14)}`;
    await chain(newCall(), lookup)(apiEvent({ authorization: `Bearer ${other}` }), lambdaContext());
    expect(lookup).toHaveBeenCalledWith(createHash('sha256').update(other, 'utf8').digest('hex'));
    expect(lookup).not.toHaveBeenCalledWith(FINGERPRINT);
  });

  test("the lookup's own refusal reaches the caller as it is; no caller is set, the handler does not run", async () => {
    const refusal = new KeyRevoked();
    const handlerBody = jest.fn(async () => served);
    const call = newCall();
    const handler = middy<Event, Result, Error, CallContext>()
      .before(withCall(call))
      .use(
        authenticateMiddleware({
          lookup: async () => {
            throw refusal;
          },
        }),
      )
      .handler(handlerBody);
    const err = await rejectionOf(handler(apiEvent({ authorization: `Bearer ${SECRET}` }), lambdaContext()));
    expect(err).toBe(refusal);
    expect(call.caller).toBeUndefined();
    expect(handlerBody).not.toHaveBeenCalled();
  });

  test('a refused lookup still records timings.caller', async () => {
    const call = newCall();
    await rejectionOf(
      chain(call, async () => {
        throw new Unauthorized();
      })(apiEvent({ authorization: `Bearer ${SECRET}` }), lambdaContext()),
    );
    expect(typeof call.timings.caller).toBe('number');
    expect(call.timings.caller).toBeGreaterThanOrEqual(0);
  });

  test("the path's analysis goes to the lookup with the fingerprint, as the path carries it", async () => {
    const lookup = jest.fn(async (_fp: string, _analysis?: string) => fakeCaller());
    const event = { ...apiEvent({ authorization: `Bearer ${SECRET}` }), pathParameters: { analysis: 'Acme-Main' } } as Event;
    await chain(newCall(), lookup)(event, lambdaContext());
    expect(lookup).toHaveBeenCalledWith(FINGERPRINT, 'Acme-Main');
  });

  test('a stamp sent to the writer is waited for before the reply, served or refused', async () => {
    for (const refused of [false, true]) {
      let settled = false;
      const stamped = new Promise<void>((resolve) =>
        setTimeout(() => {
          settled = true;
          resolve();
        }, 30),
      );
      const handler = middy<Event, Result, Error, CallContext>()
        .before(withCall(newCall()))
        .use(authenticateMiddleware({ lookup: async () => ({ ...fakeCaller(), stamped }) }))
        .handler(async () => {
          if (refused) throw new Unauthorized();
          return served;
        });
      const outcome = handler(apiEvent({ authorization: `Bearer ${SECRET}` }), lambdaContext());
      if (refused) await rejectionOf(outcome);
      else expect(await outcome).toBe(served);
      expect(settled).toBe(true);
    }
  });
});

describe('bearerSecret: the secret of an Authorization header, or null', () => {
  test.each([
    [`Bearer ${'geo_live_' + 'a'.repeat(40)}`, true],
    [`bearer ${'geo_live_' + 'a'.repeat(40)}`, true],
    [`Bearer  ${'geo_live_' + 'a'.repeat(40)}`, false],
    [`Bearer ${'geo_live_' + 'a'.repeat(40)}\n`, false],
    [`Bearer\t${'geo_live_' + 'a'.repeat(40)}`, false],
    [`Bearer ${'geo_live_' + 'a'.repeat(40)},Bearer ${'geo_live_' + 'b'.repeat(40)}`, false],
    ['Bearer geo_live_', false],
    [`Bearer ${'geo_live_' + 'a'.repeat(10_000)}`, false],
  ])('%j accepted: %s', (header, ok) => {
    expect(bearerSecret({ authorization: header }) !== null).toBe(ok);
  });
});
