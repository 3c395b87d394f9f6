import type { Queryable } from '#shared/store/queryable.js';

/** The owner role of the embedded store (PGlite's own superuser). */
export const EMBEDDED_OWNER = 'postgres';

/**
 * The embedded store is one PostgreSQL backend that every socket connection shares, and that backend acts
 * as the read-only service role (local/stores.ts). An operator connection takes the owner role for each of
 * its own transactions only, with SET LOCAL ROLE: the socket server serves a connection alone while it is
 * inside a transaction, and the role falls back to the service's at COMMIT or ROLLBACK, so the API running
 * beside it never reads as the owner.
 */
export function ownerTransactions(connection: Queryable): Queryable {
  let inTransaction = false;
  const owner = () => connection.query(`SET LOCAL ROLE ${EMBEDDED_OWNER}`);
  return {
    query: async <R>(text: string, params?: unknown[]) => {
      const statement = text.trim().replace(/;$/, '').toUpperCase();
      if (statement === 'BEGIN') {
        const begun = await connection.query<R>(text);
        inTransaction = true;
        await owner();
        return begun;
      }
      if (statement === 'COMMIT' || statement === 'ROLLBACK') {
        inTransaction = false;
        return connection.query<R>(text);
      }
      if (inTransaction) return connection.query<R>(text, params);
      await connection.query('BEGIN');
      try {
        await owner();
        const result = await connection.query<R>(text, params);
        await connection.query('COMMIT');
        return result;
      } catch (err) {
        await connection.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    },
  };
}
