#!/usr/bin/env bash
# cfn-lint (CloudFormation's own linter) on every template of one or more cloud assemblies.
# Usage: scripts/cfn-lint.sh DIR [DIR...]   (DIR: a `cdk synth` output directory, e.g. $CDK_OUTDIR)
# Exit status: non-zero on any error-level finding (or a failure of cfn-lint itself); warnings are printed
# and do not fail. Without cfn-lint on PATH it says so and exits 0: the linter is a Python tool
# (`pip install cfn-lint`), not a dependency of this repository.
set -euo pipefail

if ! command -v cfn-lint >/dev/null 2>&1; then
  echo "cfn-lint: not installed here, templates not linted (pip install cfn-lint)"
  exit 0
fi

templates=()
for dir in "$@"; do
  for t in "$dir"/*.template.json; do [ -e "$t" ] && templates+=("$t"); done
done
if [ "${#templates[@]}" -eq 0 ]; then
  echo "cfn-lint: no *.template.json in $*" >&2
  exit 1
fi

status=0
cfn-lint --format parseable -- "${templates[@]}" || status=$?
# cfn-lint's exit status is a bit mask: 2 errors, 4 warnings, 8 informational; 1 means cfn-lint failed.
if (( status & 3 )); then
  echo "cfn-lint: error-level findings (or a cfn-lint failure, status $status) in the templates above" >&2
  exit 1
fi
echo "cfn-lint $(cfn-lint --version | awk '{print $2}'): 0 errors in ${#templates[@]} templates"
