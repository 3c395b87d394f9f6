#!/usr/bin/env bash
# A Debian package a test or the bench needs, installed where missing: `ensure-debian.sh BINARY PACKAGE`
# (chromium for the docs page test, test/openapi/docs.test.ts; pgbouncer for the cold-start bench,
# test/bench/pooler.ts). Only from Debian's packages: tools' own downloads (`npx playwright install`)
# cannot reach their hosts from these machines.
# Prints the path of the binary. Exit 3 when it is missing and cannot be installed (not root, no apt).
set -euo pipefail
BIN="$1"
PACKAGE="$2"
if [ -x "$BIN" ]; then
  echo "$BIN"
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "$PACKAGE is not installed and this user cannot install it: run 'apt-get install $PACKAGE' as root" >&2
  exit 3
fi
# One install at a time on a shared machine; apt itself waits for the dpkg lock rather than failing.
exec 9>/tmp/geo-ensure-debian.lock
flock 9
if [ ! -x "$BIN" ]; then
  export DEBIAN_FRONTEND=noninteractive
  echo "installing Debian's $PACKAGE (once per machine)..." >&2
  apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$PACKAGE" >&2
fi
echo "$BIN"
