import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { ensurePrefix } from '../pinned-prefix.js';

/**
 * The second half of `npm run lint:openapi`: Spectral with the rulesets of .spectral.yaml on
 * openapi/openapi.json, failing on any finding down to hints. Spectral and OWASP's ruleset are pinned in
 * scripts/openapi/spectral (its package.json and lockfile), apart from the root install, and installed there
 * first when absent or stale. NODE_PATH lets .spectral.yaml, at the repository's root, name the ruleset
 * package the prefix holds.
 */
export const SPECTRAL_PREFIX = resolve(import.meta.dirname, 'spectral');
const ROOT = resolve(import.meta.dirname, '..', '..');
const modules = join(SPECTRAL_PREFIX, 'node_modules');

ensurePrefix(SPECTRAL_PREFIX, 'Spectral and the OWASP ruleset');
const run = spawnSync(join(modules, '.bin', 'spectral'), ['lint', 'openapi/openapi.json', '--fail-severity=hint'], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, NODE_PATH: modules },
});
if (run.error) throw run.error;
process.exit(run.status ?? 1);
