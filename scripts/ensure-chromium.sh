#!/usr/bin/env bash
# Debian's Chromium for the docs page test (test/openapi/docs.test.ts), installed where missing.
# Only from Debian's packages: Playwright's own browser download (`npx playwright install`) cannot reach
# its host from these machines, and playwright-core drives the system binary just as well.
# Prints the path of the binary. Exit 3 when it is missing and cannot be installed (not root, no apt).
set -euo pipefail
BIN=/usr/bin/chromium
if [ -x "$BIN" ]; then
  echo "$BIN"
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "chromium is not installed and this user cannot install it: run 'apt-get install chromium' as root" >&2
  exit 3
fi
# One install at a time on a shared machine; apt itself waits for the dpkg lock rather than failing.
exec 9>/tmp/geo-ensure-chromium.lock
flock 9
if [ ! -x "$BIN" ]; then
  export DEBIAN_FRONTEND=noninteractive
  echo "installing Debian's chromium (once per machine)..." >&2
  apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium >&2
fi
echo "$BIN"
