// Jest loads global setup outside its transform pipeline; tsx loads the TypeScript stack code as the app runs it.
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  const { openSynthCache } = await tsImport('./synth-cache.ts', import.meta.url);
  openSynthCache();
  const { default: setup } = await tsImport('./stack-setup.ts', import.meta.url);
  await setup();
}
