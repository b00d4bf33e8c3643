#!/bin/sh
# Prints every reliability figure of docs/reliability.md: the CLI
# fault matrix, the fuzz smoke runs, the concurrency races and soak, the
# kill -9 rounds, the security checks and the limits. CI runs the same tests
# at their short defaults through `cargo test`; this script runs them long.
#
#   scripts/reliability.sh           # long: 30 s soak, 100 crash rounds, 100k fuzz inputs (release)
#   QUICK=1 scripts/reliability.sh   # the CI defaults, figures printed
set -eu
cd "$(dirname "$0")/.."

if [ "${QUICK:-0}" = 1 ]; then
    profile=""
else
    profile="--release"
    export AGENTTEAM_SOAK=1
    export AGENTTEAM_CRASH_ROUNDS="${AGENTTEAM_CRASH_ROUNDS:-100}"
    export AGENTTEAM_FUZZ_ITERATIONS="${AGENTTEAM_FUZZ_ITERATIONS:-100000}"
fi

for test in cli_faults reliability_fuzz reliability_concurrency reliability_crash \
    reliability_security reliability_limits; do
    echo "== $test"
    # The figures are the tests' stderr lines; the harness noise is dropped.
    cargo test $profile --quiet --test testsuite "$test::" -- --nocapture --test-threads=1 2>&1 |
        grep -v -e '^running ' -e '^test ' -e '^$' -e '^test result'
done
