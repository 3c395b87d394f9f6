import pg from 'pg';

/**
 * One statement on the PostgreSQL server of `serverUrl` from a connection to its maintenance database
 * (CREATE and DROP DATABASE cannot run inside the database they name, nor while it is a template in use).
 */
export async function onServer(serverUrl: string, sql: string): Promise<void> {
  const url = new URL(serverUrl);
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}
