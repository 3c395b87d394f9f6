import { rm } from 'node:fs/promises';
import { onServer } from './server-db.js';

export default async function globalTeardown(): Promise<void> {
  const stores = globalThis.__geoStores;
  await stores?.budget.close();
  await stores?.store.close();
  if (stores?.snapshotDir) await rm(stores.snapshotDir, { recursive: true, force: true });
  if (stores?.template && process.env.DATABASE_URL) await onServer(process.env.DATABASE_URL, `DROP DATABASE IF EXISTS ${stores.template}`);
}
