#!/bin/sh
# Benchmark: builds release binaries, starts agentteam-runtime on a
# temporary store (127.0.0.1 only), seeds a board, and prints side by side:
#
#   (a) one `agentteam exec task get` vs the same request by curl, whole processes
#   (b) 1,000 gets: 1,000 agentteam processes, one `--batch` run, one `curl -K` run
#   (c) runtime throughput and p50/p99 latency of task.get and task.create at
#       concurrency 32 (wrk), next to a static-response ceiling (the 404 JSON
#       of an unknown route, same tool, same request shape)
#   (d) peak RSS of one CLI call and of the runtime after the load
#   (e) wall time of `--input-schema` and `--help`
#
# and whether each issue-6 target is met. Everything is bounded: fixed
# request counts, fixed wrk durations; the runtime is stopped and the temp
# dir removed on exit.
#
#   scripts/bench.sh
#
# Tuning (environment): BENCH_SECONDS (wrk run length, default 10),
# BENCH_CONCURRENCY (default 32), BENCH_CALLS (the 1,000 of (b)),
# BENCH_RUNS (hyperfine runs per single-call figure, default 40).
#
# Needs hyperfine, wrk, curl, jq and GNU time; on Debian/Ubuntu:
#   apt-get install -y hyperfine wrk curl jq time
# (run as root, the script installs what is missing that way itself).
# BENCH_BIN_DIR=DIR benchmarks prebuilt binaries from DIR instead of building.
set -eu

seconds=${BENCH_SECONDS:-10}
concurrency=${BENCH_CONCURRENCY:-32}
calls=${BENCH_CALLS:-1000}
runs=${BENCH_RUNS:-40}
seed_tasks=1000
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."

# shellcheck source=scripts/bench/lib.sh
. "$here/bench/lib.sh"
need_tools hyperfine wrk curl jq time
build
start_runtime bench
echo "==> seeding $seed_tasks tasks (CLI --batch, 50 titles a line)" >&2
seed bench 1 "$seed_tasks"

# The request every single-call figure makes, for the CLI and for curl alike.
printf '{"channel":"bench","number":42}\n' >"$work/get.json"
cat >"$work/curl-one.cfg" <<EOF
url = "$base/tasks/get"
header = "Content-Type: application/json"
header = "Authorization: Bearer $token"
data-binary = "@$work/get.json"
silent
show-error
fail-with-body
output = "/dev/null"
EOF
# 1,000 gets: NDJSON for --batch, a curl config of 1,000 keep-alive requests.
jq -nc --argjson n "$calls" 'range(0; $n) | {channel: "bench", number: (. % 1000 + 1)}' \
    >"$work/gets.ndjson"
i=0
: >"$work/curl-many.cfg"
while [ "$i" -lt "$calls" ]; do
    [ "$i" -gt 0 ] && echo "next" >>"$work/curl-many.cfg"
    cat >>"$work/curl-many.cfg" <<EOF
url = "$base/tasks/get"
header = "Content-Type: application/json"
header = "Authorization: Bearer $token"
data-binary = "{\\"channel\\":\\"bench\\",\\"number\\":$((i % 1000 + 1))}"
silent
output = "/dev/null"
write-out = "%{http_code}\\n"
EOF
    i=$((i + 1))
done

# Sanity: both clients get the same task before anything is timed.
"$agentteam" exec task get "$work/get.json" | jq -e '.data.number == 42' >/dev/null
curl -K "$work/curl-one.cfg" -o - | jq -e '.number == 42' >/dev/null
[ "$("$agentteam" exec task get --batch "$work/gets.ndjson" | jq -s '[.[] | select(.data)] | length')" = "$calls" ]
[ "$(curl -K "$work/curl-many.cfg" | grep -c '^200$')" = "$calls" ]

# median <hyperfine json> <index>: median seconds of one command, in ms.
median_ms() { jq -r ".results[$2].median * 1000" "$1"; }
hf() { hyperfine --style none -N "$@" >/dev/null 2>&1; }

# ------------------------------------------------------------------ (a)
echo "==> (a) one get: agentteam vs curl (hyperfine, $runs runs each)" >&2
hf --warmup 5 --runs "$runs" --export-json "$work/a.json" \
    "$agentteam exec task get $work/get.json" \
    "curl -K $work/curl-one.cfg"
a_cli=$(median_ms "$work/a.json" 0)
a_curl=$(median_ms "$work/a.json" 1)

# ------------------------------------------------------------------ (b)
echo "==> (b) $calls gets: $calls invocations, one --batch, one curl -K" >&2
cat >"$work/loop.sh" <<EOF
i=0
while [ \$i -lt $calls ]; do
    "$agentteam" exec task get "$work/get.json" >/dev/null || exit 1
    i=\$((i + 1))
done
EOF
cat >"$work/curl-loop.sh" <<EOF
i=0
while [ \$i -lt $calls ]; do
    curl -K "$work/curl-one.cfg" || exit 1
    i=\$((i + 1))
done
EOF
# One run each: 2 × 1,000 processes already take seconds; (a) has the per-call medians.
hf --runs 1 --export-json "$work/b1.json" "sh $work/loop.sh" "sh $work/curl-loop.sh"
hf --warmup 1 --runs 10 --export-json "$work/b2.json" \
    "$agentteam exec task get --batch $work/gets.ndjson" \
    "curl -K $work/curl-many.cfg"
b_invocations=$(median_ms "$work/b1.json" 0)
b_curl_invocations=$(median_ms "$work/b1.json" 1)
b_batch=$(median_ms "$work/b2.json" 0)
b_curl_k=$(median_ms "$work/b2.json" 1)

# ------------------------------------------------------------------ (e)
echo "==> (e) --input-schema and --help" >&2
hf --warmup 5 --runs "$runs" --export-json "$work/e.json" \
    "$agentteam exec task get --input-schema" \
    "$agentteam exec task get --help"
e_schema=$(median_ms "$work/e.json" 0)
e_help=$(median_ms "$work/e.json" 1)

# ------------------------------------------------------------------ (d) CLI
# Median of 5 peak RSS figures (KiB) of one whole process.
peak_rss_kib() {
    for _ in 1 2 3 4 5; do
        /usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null
        cat "$work/rss"
    done | sort -n | sed -n 3p
}
d_cli=$(peak_rss_kib "$agentteam" exec task get "$work/get.json")
d_curl=$(peak_rss_kib curl -K "$work/curl-one.cfg")

# ------------------------------------------------------------------ (c)
# wrk_run <kind> <path>: prints "rps p50_us p99_us requests non2xx socket_errors".
wrk_run() {
    BENCH_KIND=$1 BENCH_TOKEN=$token BENCH_TASKS=$seed_tasks \
        wrk -t2 -c"$concurrency" -d"${seconds}s" -s "$here/bench/load.lua" "$base$2" |
        sed -n 's/^RESULT //p'
}
echo "==> (c) wrk -t2 -c$concurrency -d${seconds}s: static ceiling, task.get, task.create" >&2
c_static=$(wrk_run static /tasks/no-such-route)
c_get=$(wrk_run get /tasks/get)
c_create=$(wrk_run create /tasks)
field() { echo "$1" | cut -d' ' -f"$2"; }
for result in "$c_get" "$c_create"; do
    if [ "$(field "$result" 5)" != 0 ] || [ "$(field "$result" 6)" != 0 ]; then
        echo "load run had failures (non-2xx, socket errors): $result" >&2
        tail -n 5 "$work/runtime.log" >&2
        exit 1
    fi
done
d_runtime=$(awk '/^VmHWM:/ { print $2 }' "/proc/$server_pid/status")
board_size=$((seed_tasks + $(field "$c_create" 4)))

# ------------------------------------------------------------------ report
ratio() { awk "BEGIN { printf \"%.2f\", $1 / $2 }"; }
ms() { awk "BEGIN { printf \"%.1f ms\", $1 }"; }
mib() { awk "BEGIN { printf \"%.1f MiB\", $1 / 1024 }"; }
us_ms() { awk "BEGIN { printf \"%.2f ms\", $1 / 1000 }"; }
# verdict <value> <op> <limit>
verdict() { awk "BEGIN { print ($1 $2 $3) ? \"met\" : \"MISSED\" }"; }

cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
fs=$(df -T "$work" | awk 'NR == 2 { print $2 " on " $1 }')
echo
echo "agentteam benchmark — $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "machine: $(nproc) CPUs ($cpu), $mem; store on $fs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
printf '%-44s %-16s %-20s %-7s %-15s %s\n' "measure" "agentteam" "reference" "ratio" "target" "verdict"
row() { printf '%-44s %-16s %-20s %-7s %-15s %s\n' "$@"; }
row "(a) one task.get, whole process (median)" "$(ms "$a_cli")" "curl $(ms "$a_curl")" \
    "$(ratio "$a_cli" "$a_curl")" "<= 0.5x curl" "$(verdict "$a_cli / $a_curl" "<=" 0.5)"
row "(b) $calls gets as $calls invocations" "$(ms "$b_invocations")" "curl $(ms "$b_curl_invocations")" \
    "$(ratio "$b_invocations" "$b_curl_invocations")" "-" "-"
row "(b) $calls gets, one --batch run" "$(ms "$b_batch")" "curl -K $(ms "$b_curl_k")" \
    "$(ratio "$b_batch" "$b_curl_k")" "<= 2x curl -K" "$(verdict "$b_batch / $b_curl_k" "<=" 2)"
row "(b) invocations / --batch" "$(ratio "$b_invocations" "$b_batch")x" "" "" ">= 20x" \
    "$(verdict "$b_invocations / $b_batch" ">=" 20)"
row "(c) static ceiling (404 JSON), req/s" "$(field "$c_static" 1)" "" "" "-" "-"
row "(c) static ceiling p50 / p99" "$(us_ms "$(field "$c_static" 2)")" "$(us_ms "$(field "$c_static" 3)")" "" "-" "-"
row "(c) task.get req/s" "$(field "$c_get" 1)" "static $(field "$c_static" 1)" \
    "$(ratio "$(field "$c_get" 1)" "$(field "$c_static" 1)")" ">= 20000" "$(verdict "$(field "$c_get" 1)" ">=" 20000)"
row "(c) task.get p50 / p99" "$(us_ms "$(field "$c_get" 2)")" "$(us_ms "$(field "$c_get" 3)")" "" "p99 <= 10 ms" \
    "$(verdict "$(field "$c_get" 3)" "<=" 10000)"
row "(c) task.create req/s (synchronous=FULL)" "$(field "$c_create" 1)" "static $(field "$c_static" 1)" \
    "$(ratio "$(field "$c_create" 1)" "$(field "$c_static" 1)")" ">= 2000" "$(verdict "$(field "$c_create" 1)" ">=" 2000)"
row "(c) task.create p50 / p99" "$(us_ms "$(field "$c_create" 2)")" "$(us_ms "$(field "$c_create" 3)")" "" "p99 <= 10 ms" \
    "$(verdict "$(field "$c_create" 3)" "<=" 10000)"
row "(d) CLI peak RSS, one task.get" "$(mib "$d_cli")" "curl $(mib "$d_curl")" \
    "$(ratio "$d_cli" "$d_curl")" "<= 8 MiB" "$(verdict "$d_cli" "<=" 8192)"
row "(d) runtime peak RSS (VmHWM) after (c)" "$(mib "$d_runtime")" "" "" "<= 64 MiB" \
    "$(verdict "$d_runtime" "<=" 65536)"
row "(e) task get --input-schema" "$(ms "$e_schema")" "" "" "<= 3 ms" "$(verdict "$e_schema" "<=" 3)"
row "(e) task get --help" "$(ms "$e_help")" "" "" "<= 3 ms" "$(verdict "$e_help" "<=" 3)"
echo
echo "medians; (c) is wrk -t2 -c$concurrency -d${seconds}s on the same machine as the runtime;"
echo "board: $seed_tasks seeded tasks, plus those task.create made under load ($board_size in all)."
