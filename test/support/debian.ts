import { accessSync, constants } from 'node:fs';

/**
 * Debian packages some tests and the bench drive (chromium: the reference page test; pgbouncer: the
 * cold-start bench). Nothing here installs them: `npm test` and `npm run bench` change nothing outside the
 * repository. scripts/install-debian-packages.sh installs them all, as root; CI runs it before the tests.
 */
export const INSTALL_DEBIAN_PACKAGES = 'bash scripts/install-debian-packages.sh';

/** The commands that install Debian's `pkg`, for a skip notice or an error. */
export function debianInstallHint(pkg: string): string {
  return `install it as root with \`apt-get install -y ${pkg}\` (or \`${INSTALL_DEBIAN_PACKAGES}\`: all that the tests and the bench use)`;
}

/** `binary` when it is installed and executable, else undefined: decide before `describe`, then skip with debianInstallHint. */
export function findDebianBinary(binary: string): string | undefined {
  try {
    accessSync(binary, constants.X_OK);
    return binary;
  } catch {
    return undefined;
  }
}

/** `binary`, or an error naming the install command when Debian's `pkg` is missing; `why` says what needs it. */
export function requireDebianBinary(binary: string, pkg: string, why: string): string {
  const found = findDebianBinary(binary);
  if (found) return found;
  throw new Error(`${why} needs Debian's ${pkg} (${binary}), which is not installed: ${debianInstallHint(pkg)}.`);
}
