import { ApiError } from '#shared/errors.js';
import { fingerprint } from '#shared/keys.js';
import { prepareRead, readContext } from '#shared/reads/execute.js';
import type { ReadDef } from '#shared/reads/types.js';
import { lookupCaller } from '#shared/store/caller.js';
import type { Db } from '#shared/store/db.js';
import type { Queryable } from '#shared/store/queryable.js';

/** A store's connection (pg or PGlite) as the reads take it: the rows of each statement. */
export const asDb = (q: Queryable): Db => ({ query: async (text, params) => (await q.query(text, params ?? [])).rows as never });

export type FaceAnswer = { status: 'served'; body: unknown } | { status: number; code: string };

/**
 * One read as a face runs it on `db`, without the chain around it: the caller statement, the input
 * checked, the read (at `now`, the clock of the call, when given). A refusal is its status and code. The
 * key's last use is left out of get_me's body: a key never used answers it with the time of the call.
 */
export async function readAsFace(db: Db, read: ReadDef, secret: string, args: Record<string, unknown>, now?: Date): Promise<FaceAnswer> {
  try {
    const analysis = typeof args.analysis === 'string' ? args.analysis : undefined;
    const caller = await lookupCaller(db, fingerprint(secret), { lastUsedThrottleSeconds: 0 }, analysis);
    const prepared = prepareRead(read, caller, args);
    const budget = { limit: 1000, remaining: 999, resetAfterSeconds: 0 };
    const ctx = readContext({ db, config: { CURSOR_SECRET: 'face-read-test' } }, 'r', caller, budget, prepared.analysis);
    const body = (await read.run(now ? { ...ctx, now } : ctx, prepared.input as never)) as { key?: { last_used_at?: unknown } };
    delete body.key?.last_used_at;
    return { status: 'served', body };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { status: err.status, code: err.code };
  }
}
