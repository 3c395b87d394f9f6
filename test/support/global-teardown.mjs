import { tsImport } from 'tsx/esm/api';

export default async function globalTeardown() {
  const { default: teardown } = await tsImport('./stack-teardown.ts', import.meta.url);
  await teardown();
  const { closeSynthCache } = await tsImport('./synth-cache.ts', import.meta.url);
  closeSynthCache();
}
