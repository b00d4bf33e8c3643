#!/bin/sh
# What input validation costs, in one run: builds the release binaries and
# the validatebench example, starts agentteam-runtime on a temporary store
# (127.0.0.1 only), and prints
#
#   peak RSS (median of 5) of one `agentteam exec task get` and one
#       `task create`, beside curl making the same request, and the ratio;
#   wall time (hyperfine, median) of `task create --input-schema` and
#       `task get --input-schema`;
#   examples/validatebench: ns per in-process `validate` of a create, a get
#       and a refused create, as the runtime validates a body on receipt;
#
# and whether the targets hold: RSS <= 0.75 x curl's, --input-schema
# <= 3 ms, validation of a create <= 10 us.
#
#   scripts/bench-validation.sh
#
# BENCH_BASELINE_DIR=DIR measures the agentteam of another build beside this
# one in the same run (RSS and --input-schema; validatebench is this tree's).
# BENCH_BIN_DIR=DIR uses prebuilt binaries instead of building; then
# BENCH_VALIDATEBENCH=PATH names a prebuilt validatebench (else it is built).
# BENCH_RUNS: hyperfine runs (default 40). Needs hyperfine, curl, jq and GNU
# time (run as root, the script installs what is missing with apt-get).
set -eu

runs=${BENCH_RUNS:-40}
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."

# shellcheck source=scripts/bench/lib.sh
. "$here/bench/lib.sh"
need_tools hyperfine curl jq time
build
if [ -n "${BENCH_VALIDATEBENCH:-}" ]; then
    validatebench=$BENCH_VALIDATEBENCH
else
    echo "==> cargo build --release --example validatebench" >&2
    cargo build --release --quiet --example validatebench
    validatebench="$(dirname "$agentteam")/examples/validatebench"
fi
start_runtime bench

# The requests, for the CLI and for curl alike (these wire names need no
# case mapping). The get reads the task the first create made.
printf '{"channel":"bench","tasks":[{"title":"Write the release notes"}]}\n' >"$work/create.json"
printf '{"channel":"bench","number":1}\n' >"$work/get.json"
"$agentteam" exec task create "$work/create.json" | jq -e '.data.tasks[0].number == 1' >/dev/null
curl_cfg() { # curl_cfg ROUTE BODY_FILE
    cat <<EOF
url = "$base$1"
header = "Content-Type: application/json"
header = "Authorization: Bearer $token"
data-binary = "@$2"
silent
show-error
fail-with-body
output = "/dev/null"
EOF
}
curl_cfg /tasks "$work/create.json" >"$work/curl-create.cfg"
curl_cfg /tasks/get "$work/get.json" >"$work/curl-get.cfg"
"$agentteam" exec task get "$work/get.json" | jq -e '.data.number == 1' >/dev/null
curl -K "$work/curl-get.cfg" -o - | jq -e '.number == 1' >/dev/null

# Median of 5 peak RSS figures (KiB) of one whole process.
peak_rss_kib() {
    for _ in 1 2 3 4 5; do
        /usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null
        cat "$work/rss"
    done | sort -n | sed -n 3p
}
median_ms() { jq -r ".results[$2].median * 1000" "$1"; }
ratio() { awk "BEGIN { printf \"%.2f\", $1 / $2 }"; }
mib() { awk "BEGIN { printf \"%.1f MiB\", $1 / 1024 }"; }
ms() { awk "BEGIN { printf \"%.2f ms\", $1 }"; }
verdict() { awk "BEGIN { print ($1 $2 $3) ? \"met\" : \"MISSED\" }"; }
row() { printf '%-34s %-12s %-12s %-12s %-8s %s\n' "$@"; }

curl_get=$(peak_rss_kib curl -K "$work/curl-get.cfg")
curl_create=$(peak_rss_kib curl -K "$work/curl-create.cfg")

# measure LABEL BIN: one block of rows for the agentteam in BIN.
measure() {
    cli="$2/agentteam"
    echo "==> $1: RSS and --input-schema" >&2
    get=$(peak_rss_kib "$cli" exec task get "$work/get.json")
    create=$(peak_rss_kib "$cli" exec task create "$work/create.json")
    hyperfine --style none -N --warmup 5 --runs "$runs" --export-json "$work/schema.json" \
        "$cli exec task create --input-schema" "$cli exec task get --input-schema" >/dev/null 2>&1
    schema_create=$(median_ms "$work/schema.json" 0)
    schema_get=$(median_ms "$work/schema.json" 1)
    size=$(wc -c <"$cli")
    echo
    echo "$1: $cli ($(awk "BEGIN { printf \"%.1f MB\", $size / 1e6 }"))"
    row "measure" "agentteam" "curl" "ratio" "target" "verdict"
    row "peak RSS, one task.get" "$(mib "$get")" "$(mib "$curl_get")" "$(ratio "$get" "$curl_get")" \
        "<= 0.75x" "$(verdict "$get / $curl_get" "<=" 0.75)"
    row "peak RSS, one task.create" "$(mib "$create")" "$(mib "$curl_create")" \
        "$(ratio "$create" "$curl_create")" "<= 0.75x" "$(verdict "$create / $curl_create" "<=" 0.75)"
    row "task create --input-schema" "$(ms "$schema_create")" "" "" "<= 3 ms" \
        "$(verdict "$schema_create" "<=" 3)"
    row "task get --input-schema" "$(ms "$schema_get")" "" "" "<= 3 ms" "$(verdict "$schema_get" "<=" 3)"
}

report=$work/report
{
    cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
    mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
    echo "agentteam validation benchmark — $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "machine: $(nproc) CPUs ($cpu), $mem; load $(cut -d' ' -f1-3 /proc/loadavg)"
    measure "this build" "$(dirname "$agentteam")"
    if [ -n "${BENCH_BASELINE_DIR:-}" ]; then
        measure "baseline" "$BENCH_BASELINE_DIR"
    fi
    echo
    echo "==> validatebench" >&2
    "$validatebench" | tee "$work/validatebench"
    # The compiled engine's CPU ns of the rich create (fields: name, CPU / wall, …).
    create_ns=$(awk '/^task.create, one rich task/ { print $5 }' "$work/validatebench")
    echo
    echo "validation of one rich create (compiled, CPU): $create_ns ns, target <= 10000 ns:" \
        "$(verdict "$create_ns" "<=" 10000)"
    echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$report"
cat "$report"
