#!/bin/sh
# Board-size scaling: task.list latency — browsing and
# searching — on one board of 1,000, 10,000 and 100,000 tasks. The board is
# filled in steps (CLI --batch, 50 titles a line) on a temp store, and each
# query is timed at each size by wrk with one connection (a latency, not a
# throughput: p50 and p99 of BENCH_SCALE_SECONDS, default 3, per query).
#
#   scripts/bench-scale.sh
#   BENCH_SCALE_SIZES="1000 10000" scripts/bench-scale.sh   # other sizes
#
# Titles: "task N of the board", with "cache" in 1 task of 10 and "urgent"
# in 1 of 100, so the searches match 10 % and 1 % of the board. That search
# uses the FTS index and browsing a board index is checked by
# `cargo test --lib plan_tests` (EXPLAIN QUERY PLAN); see docs/performance.md.
# Needs wrk and jq (apt-get install -y wrk jq); BENCH_BIN_DIR as in bench.sh.
set -eu

seconds=${BENCH_SCALE_SECONDS:-3}
sizes=${BENCH_SCALE_SIZES:-1000 10000 100000}
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
# shellcheck source=scripts/bench/lib.sh
. "$here/bench/lib.sh"
need_tools wrk curl jq
build
start_runtime scale

# latency <query string>: "p50_ms p99_ms" of GET /tasks?<query string>.
latency() {
    BENCH_KIND=list BENCH_TOKEN=$token \
        wrk -t1 -c1 -d"${seconds}s" -s "$here/bench/load.lua" "$base/tasks?$1" |
        awk '/^RESULT/ { if ($6 != 0 || $7 != 0) { print "failed: " $0 > "/dev/stderr"; exit 1 }
                         printf "%.2f %.2f", $3 / 1000, $4 / 1000 }'
}

queries="browse,updated_desc|channel=scale
browse,number_asc|channel=scale&sort=number_asc
browse,page_2|CURSOR
search,1%_relevance|channel=scale&query=urgent
search,10%_relevance|channel=scale&query=cache
search,10%_updated_desc|channel=scale&query=cache&sort=updated_desc
search,100%_relevance|channel=scale&query=task"

printf '%-28s' "query (p50 / p99 ms)"
for size in $sizes; do printf '%-20s' "$size tasks"; done
echo
have=0
results="$work/scale.txt"
: >"$results"
for size in $sizes; do
    echo "==> filling the board to $size tasks" >&2
    started=$(date +%s)
    seed scale $((have + 1)) $((size - have))
    echo "    seeded $((size - have)) tasks in $(($(date +%s) - started)) s" >&2
    have=$size
    cursor=$(curl -sS -H "Authorization: Bearer $token" "$base/tasks?channel=scale" | jq -r .nextCursor)
    echo "$queries" | while IFS='|' read -r name q; do
        [ "$q" = CURSOR ] && q="channel=scale&cursor=$cursor"
        echo "$size $name $(latency "$q")" >>"$results"
    done
done
echo "$queries" | while IFS='|' read -r name _; do
    printf '%-28s' "$name"
    for size in $sizes; do
        printf '%-20s' "$(awk -v s="$size" -v n="$name" '$1 == s && $2 == n { print $3 " / " $4 }' "$results")"
    done
    echo
done
echo
echo "one board, one connection (wrk -t1 -c1 -d${seconds}s), limit 20; store on $(df -T "$work" | awk 'NR == 2 { print $2 }')"
