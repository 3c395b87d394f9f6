import type { Queryable } from '#shared/store/queryable.js';

/** How the store refused a write: its SQLSTATE, the constraint it names, its message. */
export interface Refusal {
  code?: string;
  constraint?: string;
  message: string;
}

/** A statement, with its parameters where it takes some. */
export type Statement = string | [sql: string, params: unknown[]];

/**
 * The error of a transaction's statements, or null when all of them passed; rolled back either way, so
 * the store's data is never changed by a test of its refusals.
 */
export async function refusalOf(db: Queryable, ...statements: Statement[]): Promise<Refusal | null> {
  await db.query('BEGIN');
  try {
    for (const s of statements) await (typeof s === 'string' ? db.query(s) : db.query(s[0], s[1]));
    return null;
  } catch (err) {
    return err as Refusal;
  } finally {
    await db.query('ROLLBACK');
  }
}
