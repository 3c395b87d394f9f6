import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensurePrefix as ensurePinned, staleness as stalenessOf } from '../../scripts/pinned-prefix.js';

/**
 * The hosts this suite drives (Claude Code, Gemini CLI, Codex CLI) are pinned in test/hosts/pinned (its
 * package.json and lockfile), apart from the root install: they weigh more than everything else together
 * and only `npm run test:hosts` uses them. Its first step runs this: `npm ci` into that prefix when it is
 * absent or no longer what its lockfile says, nothing otherwise. A folder of its own, so that the suite's
 * files stay in the repository's package (ES modules, its `#shared` imports).
 */
export const PREFIX = resolve(import.meta.dirname, 'pinned');

/** A host's executable in the prefix. */
export const hostBin = (name: string): string => join(PREFIX, 'node_modules', '.bin', name);

/** What to run when a host is missing. */
export const INSTALL = 'npm run test:hosts installs the pinned hosts (npm ci --prefix test/hosts/pinned)';

/** Why the hosts' prefix must be installed again, or undefined when it is as its lockfile says. */
export const staleness = (prefix = PREFIX): string | undefined => stalenessOf(prefix);

export const ensurePrefix = (prefix = PREFIX): void => ensurePinned(prefix, 'the pinned hosts');

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) ensurePrefix();
