import { ApiError } from '../errors.js';
import { logger } from '../log.js';
import type { Db } from './db.js';
import { StoreError, storeFaultCause } from './faults.js';

/**
 * The stamp on the writer: only if it is still due there (the reader the caller statement ran on may lag
 * behind), never waiting for a row lock another transaction holds.
 */
const STAMP_SQL = `UPDATE api_keys u SET last_used_at = now()
  WHERE u.id = (SELECT x.id FROM api_keys x
                 WHERE x.id = $1::uuid
                   AND (x.last_used_at IS NULL OR x.last_used_at < now() - make_interval(secs => $2::integer))
                   FOR UPDATE SKIP LOCKED)`;

/**
 * How long a reply waits for its stamp. The stamp runs beside the budget and the read, so it has
 * normally finished by then; a writer slow to answer (a first connection, a failover) must not hold the
 * reply. A stamp still running then finishes on its own, or fails and is logged.
 */
export const STAMP_WAIT_MS = 250;

/**
 * Keeps last_used_at through `writer` (a pool of one connection to the writer), at most once per throttle
 * period per key from this process, whatever the reader says is due: a reader lagging behind, or a
 * writer refusing, must not turn every call into a write. A failure is logged and ignored: the stamp
 * never decides whether a call is served.
 */
export function createStamper(writer: Db, throttleSeconds: number, waitMs = STAMP_WAIT_MS): (keyId: string) => Promise<void> {
  const sentAt = new Map<string, number>();
  const period = throttleSeconds * 1000;
  return (keyId) => {
    const now = Date.now();
    const last = sentAt.get(keyId);
    if (last !== undefined && now - last < period) return Promise.resolve();
    if (sentAt.size >= 10_000) for (const [id, at] of sentAt) if (now - at >= period) sentAt.delete(id);
    sentAt.set(keyId, now);
    const work = writer.query(STAMP_SQL, [keyId, throttleSeconds]).then(
      () => undefined,
      (err: unknown) => {
        const cause = err instanceof ApiError || err instanceof StoreError ? err.cause : storeFaultCause(err, 'query');
        logger.warn('last_used_at stamp not kept', { key_id: keyId, cause });
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
      timer.unref();
    });
    return Promise.race([work, bound]).finally(() => clearTimeout(timer));
  };
}
