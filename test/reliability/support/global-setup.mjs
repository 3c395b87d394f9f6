// Jest loads global setup outside its transform pipeline; tsx loads the TypeScript stack code as the app runs it.
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  const { setup } = await tsImport('./stores.ts', import.meta.url);
  await setup();
}
