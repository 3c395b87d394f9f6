/**
 * The API under test as a process of its own (bundled by the battery's global setup with esbuild, as
 * the functions are for Lambda), so that its memory is measured apart from jest and fast-check, and a
 * crash shows as a dead process rather than a failed test. Configuration comes from the environment
 * (shared/config/service.ts); it prints one JSON line with its address once it listens.
 */
import { parseConfig } from '#shared/config/service.js';
import { startApi } from '../../../local/stack.js';

const api = await startApi(parseConfig(process.env));
process.stdout.write(`${JSON.stringify({ listening: api.url })}\n`);

process.on('SIGTERM', () => {
  void api.close().finally(() => process.exit(0));
});
