#!/usr/bin/env bash
# Offline `cdk synth` with real esbuild bundling and cdk-nag (AwsSolutions) as a gate.
# No AWS account or credentials are needed: a dummy account and region stand in, and cdk.json answers the
# availability-zone lookup for that dummy account (a real account's answer lands in cdk.context.json).
# Extra arguments go to cdk, e.g. `scripts/synth.sh -c stage=prod -c alarmEmail=oncall@yourcompany.com`
# (prod's cdk.json address is a placeholder, which refuses to synthesize). Lint the result with
# `scripts/cfn-lint.sh "$CDK_OUTDIR"`.
# Exit status: non-zero when synthesis fails, including any cdk-nag finding that is neither fixed nor
# acknowledged (the validation report is printed above the failure). A stage configuration that cannot be
# deployed as it stands (a placeholder alarm address, an unknown key...) is one line on stderr naming the
# key to set, and nothing else: the CLI's own "Subprocess exited with error 1" after it is dropped.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${CDK_OUTDIR:-$(mktemp -d -t geo-cdk-out.XXXXXX)}"
export AWS_EC2_METADATA_DISABLED=true
# The CLI derives the default environment from the AWS configuration; pin both so no lookup happens.
export CDK_DEFAULT_ACCOUNT="${CDK_DEFAULT_ACCOUNT:-111111111111}"
export CDK_DEFAULT_REGION="${CDK_DEFAULT_REGION:-eu-west-1}"
export AWS_REGION="${AWS_REGION:-$CDK_DEFAULT_REGION}"
export AWS_DEFAULT_REGION="${AWS_DEFAULT_REGION:-$CDK_DEFAULT_REGION}"

log="$(mktemp -t geo-cdk-synth.XXXXXX)"
trap 'rm -f "$log"' EXIT

status=0
npx cdk synth --no-notices -o "$out" -q "$@" >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  grep -v -e '^npm warn' -e ': Subprocess exited with error [0-9]*$' "$log" >&2 || true
  exit "$status"
fi
grep -v '^npm warn' "$log" || true

# Belt and braces: the CDK fails the synth on a plugin violation, but make sure a nag report that
# slipped through as a warning is still fatal here.
if [ "$status" -eq 0 ] && grep -Eq '\(AwsSolutions\)' "$log"; then
  echo "synth: cdk-nag reported findings that are neither fixed nor acknowledged" >&2
  status=1
fi
if [ "$status" -eq 0 ]; then
  echo "synth: ok, cloud assembly in $out"
fi
exit "$status"
