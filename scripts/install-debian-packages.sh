#!/usr/bin/env bash
# The Debian packages the tests and the bench drive, installed explicitly, as root (CI runs this before the
# tests, .ci/run). Nothing else installs them: where one is missing, `npm test` skips the tests that need it
# and `npm run bench` stops, both naming this command.
#   chromium   /usr/bin/chromium     the reference page test (test/openapi/docs.test.ts), driven by playwright-core
#   pgbouncer  /usr/sbin/pgbouncer   the cold-start bench's pooler (test/bench/pooler.ts, npm run bench bundles)
# Only from Debian's packages: tools' own downloads (`npx playwright install`) cannot reach their hosts
# from these machines. Idempotent: installs what is missing (one `apt-get update`, then one install), else
# does nothing; noninteractive. Chromium takes about 2.5 minutes on a fresh machine.
set -euo pipefail

# package:binary, the binary being what the tests and the bench look for.
WANTED=(chromium:/usr/bin/chromium pgbouncer:/usr/sbin/pgbouncer)

missing=()
for entry in "${WANTED[@]}"; do
  [ -x "${entry#*:}" ] || missing+=("${entry%%:*}")
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "Debian packages: all installed (${WANTED[*]})"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "missing Debian packages: ${missing[*]}; run as root: bash scripts/install-debian-packages.sh" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "missing Debian packages: ${missing[*]}; apt-get not found (not a Debian machine)" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
echo "Debian packages: installing ${missing[*]}"
# apt waits for the dpkg lock (another install on a shared machine) rather than failing.
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}"

for entry in "${WANTED[@]}"; do
  if [ ! -x "${entry#*:}" ]; then
    echo "Debian's ${entry%%:*} is installed but ${entry#*:} is missing" >&2
    exit 1
  fi
done
echo "Debian packages: all installed (${WANTED[*]})"
