import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { readerUrl } from '../support/api.js';

/**
 * docs/contract.md#what-the-service-does: the service never writes to the measurement store, and its database
 * role proves it.
 */
describe('the service role can only read', () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: readerUrl() });
    await client.connect();
  });
  afterAll(() => client.end());

  test('it connects as geo_reader and can read', async () => {
    const { rows } = await client.query('SELECT current_user AS who, count(*)::int AS n FROM analyses');
    expect(rows[0].who).toBe('geo_reader');
    expect(rows[0].n).toBeGreaterThan(0);
  });

  test.each([
    ['INSERT', `INSERT INTO plans (key, label, api_access, calls_per_minute) VALUES ('x', 'x', true, 1)`],
    ['UPDATE', `UPDATE analyses SET name = 'x'`],
    ['UPDATE of a key other than its stamp', `UPDATE api_keys SET revoked_at = NULL`],
    ['DELETE', 'DELETE FROM answers'],
    ['TRUNCATE', 'TRUNCATE mentions'],
    ['DDL', 'CREATE TABLE intruder (id int)'],
    ["the pipeline's aggregate writer", 'SELECT finish_run_extraction(id) FROM runs WHERE finished_at IS NOT NULL LIMIT 1'],
    ['the same for many runs at once', 'SELECT finish_runs_extraction(array_agg(id)) FROM runs WHERE finished_at IS NOT NULL'],
  ])('%s is denied by the database', async (_name, sql) => {
    await expect(client.query(sql)).rejects.toThrow(/permission denied/);
  });
});
