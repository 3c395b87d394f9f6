/** What both pg (Pool, Client) and PGlite offer: enough to migrate, seed and administer. */
export interface Queryable {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
}
