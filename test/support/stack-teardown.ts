export default async function globalTeardown(): Promise<void> {
  const stores = globalThis.__geoStores;
  await stores?.budget.close();
  await stores?.store.close();
}
