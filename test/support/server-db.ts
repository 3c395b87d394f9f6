import pg from 'pg';

/** `fn` on one connection to `url`, closed whatever it does. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * One statement on the PostgreSQL server of `serverUrl` from a connection to its maintenance database
 * (CREATE and DROP DATABASE cannot run inside the database they name, nor while it is a template in use).
 */
export async function onServer(serverUrl: string, sql: string): Promise<void> {
  const url = new URL(serverUrl);
  url.pathname = '/postgres';
  await withClient(url.toString(), (client) => client.query(sql));
}
