#!/bin/sh
# Benchmark of the PostgreSQL engine beside pgbench, in one run on one
# PostgreSQL server of its own (a temp cluster on a Unix socket, fsync and
# synchronous_commit on, as a real deployment runs; its WAL segments made
# ahead and retired for reuse, as a running server's are), and prints side
# by side:
#
#   pgbench -S (select-only) and pgbench -N (simple update, durable commits)
#   at the same concurrency, on a pgbench database of the same server, with
#   prepared statements (-M prepared, the stricter yardstick, as the runtime
#   prepares its own), and pgbench -S again with pgbench's default protocol
#   (-M simple: each statement sent as text, parsed and planned);
#   task.get and task.create req/s and p50/p99 at that concurrency (wrk),
#   against one runtime replica, then against two replicas on the same
#   database with the connections split between them;
#   the floors of one replica, for scale: an unknown route's 404 (no store)
#   and GET /readyz (one SELECT 1 through the pool), both as ratios of -S;
#
# and whether each target is met: task.get >= 0.5x pgbench -S (judged
# against each protocol's -S, on a row of its own), task.create >= 0.5x
# pgbench -N, p99 <= 20 ms. Everything is bounded and removed on
# exit (runtimes stopped, cluster stopped, temp dir deleted).
#
#   scripts/bench-postgres.sh
#
# Then, with no target of its own, the two-replica task.get once more
# while, every second, the backend a replica's reads run on is stopped for
# BENCH_STALL_MS: the tail a backend waiting for a CPU makes, on demand.
# Last, every judged ratio again in BENCH_PAIRS alternating rounds of 5 s
# runs (-S prepared, -S simple, one and two replicas' task.get; -N, one and
# two replicas' task.create), the median of the rounds' ratios: this
# machine's speed moves by a third within minutes, and the runs above
# measure a yardstick and its request minutes apart.
#
# Tuning (environment): BENCH_SECONDS (each load run, default 10),
# BENCH_CONCURRENCY (default 32), BENCH_POOL (each replica's --pool-size,
# default the runtime's own), PGBENCH_SCALE (default 10), BENCH_STALL_MS
# (1-999, default 200), BENCH_PAIRS (default 3; 0 leaves the rounds out),
# BENCH_TWO_WORKERS (each of the two replicas' --workers, default half the
# CPUs: the two share them, as replicas on one host do).
# Needs PostgreSQL's server binaries (apt-get install -y postgresql), wrk,
# curl and jq; run as root, the script installs what is missing itself and
# runs the server as the `postgres` account. BENCH_BIN_DIR as in bench.sh.
set -eu

seconds=${BENCH_SECONDS:-10}
concurrency=${BENCH_CONCURRENCY:-32}
scale=${PGBENCH_SCALE:-10}
seed_tasks=1000
stall_ms=${BENCH_STALL_MS:-200}
case $stall_ms in
    [1-9] | [1-9][0-9] | [1-9][0-9][0-9]) ;;
    *) echo "BENCH_STALL_MS must be 1-999 (milliseconds), not '$stall_ms'" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."

# shellcheck source=scripts/bench/lib.sh
. "$here/bench/lib.sh"
need_tools wrk curl jq
find_postgres
build
make_work
bench_cleanup() { stop_postgres; }
# min_wal_size: a checkpoint keeps up to 1 GB of used WAL segments for reuse
# (recycle_wal below), as a server that has been running keeps its own.
start_postgres bench "-c max_connections=200 -c shared_buffers=256MB -c min_wal_size=1GB"
pgsock="$pgdir"
pgc() { tool=$1; shift; "$pg_bin/$tool" -h "$pgsock" -U bench "$@"; }
pgc createdb pgbench
pgc createdb agentteam

# ------------------------------------------------------------------ pgbench
echo "==> pgbench -i -s $scale" >&2
pgc pgbench -i -q -s "$scale" pgbench >/dev/null 2>&1
# A new cluster has no used WAL segments to reuse, so each 16 MB segment the
# runs fill is a new file, zero-filled and flushed by the committing backend
# while every other commit waits for it (about 50 ms on this machine's
# disk: a stall of every writer each time 16 MB of WAL is written, every
# 1.8 s under task.create load). A server that has been running reuses the
# segments its checkpoints retired instead. So before any run, write
# $wal_segments segments' worth of WAL switches, then CHECKPOINT: the
# checkpoint renames them into the segments the runs will fill (they write
# less than that), as steady state does. docs/performance.md, "task.create's
# p99 and new WAL segments".
wal_segments=64
echo "==> $wal_segments WAL segments made and retired for reuse (CHECKPOINT)" >&2
i=0
while [ "$i" -lt "$wal_segments" ]; do
    echo "SELECT txid_current(); SELECT pg_switch_wal();"
    i=$((i + 1))
done | pgc psql -X -q -At pgbench >/dev/null
pgc psql -X -q -At -c CHECKPOINT pgbench >/dev/null
# pgbench_run MODE [PROTOCOL]: "tps p50_ms p99_ms" of pgbench MODE at the
# concurrency, with -M PROTOCOL (default prepared).
pgbench_run() {
    pgc pgbench "$1" -M "${2:-prepared}" -c "$concurrency" -j 2 -T "$seconds" -r \
        --log --log-prefix="$work/pgbench$1" pgbench >"$work/pgbench$1.out" 2>&1
    tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$work/pgbench$1.out" | head -n 1)
    # Per-transaction latency (µs, column 3) from every client's log.
    cat "$work"/pgbench"$1".* | awk '{ print $3 }' | sort -n >"$work/lat$1"
    n=$(wc -l <"$work/lat$1")
    p50=$(sed -n "$(( (n + 1) / 2 ))p" "$work/lat$1")
    p99=$(sed -n "$(( (n * 99 + 99) / 100 ))p" "$work/lat$1")
    rm -f "$work"/pgbench"$1".*
    echo "$tps $p50 $p99"
}
echo "==> pgbench -S and -N: -c$concurrency -j2 -T$seconds, -M prepared; -S again, -M simple" >&2
pg_select=$(pgbench_run -S)
pg_update=$(pgbench_run -N)
pg_simple=$(pgbench_run -S simple)

# ------------------------------------------------------------------ runtime
db="postgres://bench@/agentteam?host=$pgsock"
[ -n "${BENCH_POOL:-}" ] && serve_flags="--pool-size $BENCH_POOL"
start_runtime bench
echo "==> seeding $seed_tasks tasks (CLI --batch, 50 titles a line)" >&2
seed bench 1 "$seed_tasks"

# wrk_run KIND URL CONNECTIONS: "rps p50_us p99_us requests non2xx socket_errors".
wrk_run() {
    BENCH_KIND=$1 BENCH_TOKEN=$token BENCH_TASKS=$seed_tasks \
        wrk -t"$( [ "$3" -ge 2 ] && echo 2 || echo 1 )" -c"$3" -d"${seconds}s" \
        -s "$here/bench/load.lua" "$2" | sed -n 's/^RESULT //p'
}
field() { echo "$1" | cut -d' ' -f"$2"; }
check() {
    if [ "$(field "$1" 5)" != 0 ] || [ "$(field "$1" 6)" != 0 ]; then
        echo "load run had failures (non-2xx, socket errors): $1" >&2
        tail -n 5 "$work/runtime.log" >&2
        exit 1
    fi
}
path="/api/v1/workspaces/$ws/agents/$agent/runtime"
# The floors of one replica: an answer with no database work at all (an
# unknown route's 404 JSON), and one with the least there is: `GET /readyz`,
# one `SELECT 1` through the pool. No request that reads the store can beat
# the second; a task.get also authenticates and reads its task.
echo "==> one replica: wrk -c$concurrency 404 fallback, /readyz, task.get, task.create" >&2
one_static=$(wrk_run static "$api$path/tasks/no-such-route" "$concurrency")
one_ready=$(wrk_run list "$api/readyz" "$concurrency")
check "$one_ready"
one_get=$(wrk_run get "$api$path/tasks/get" "$concurrency")
check "$one_get"
one_create=$(wrk_run create "$api$path/tasks" "$concurrency")
check "$one_create"

# Two replicas of their own, which share this machine's CPUs as two
# replicas on one host do: each with half the workers one replica has
# (`--workers`, BENCH_TWO_WORKERS; docs/deploy.md, pool and worker
# sizing). The first replica stays for the one-replica runs.
cpus=$(nproc)
two_workers=${BENCH_TWO_WORKERS:-$((cpus / 2 > 0 ? cpus / 2 : 1))}
echo "==> two replicas (--workers $two_workers each, on $cpus CPUs): the same load split over both" >&2
one_flags=${serve_flags:-}
serve_flags="$one_flags --workers $two_workers"
serve_on "$db" "$work/replica2a.log"
more_server_pids=$serve_pid
api1=$serve_api
serve_on "$db" "$work/replica2b.log"
more_server_pids="$more_server_pids $serve_pid"
api2=$serve_api
serve_flags=$one_flags
half=$((concurrency / 2))
# two_run KIND ROUTE: both halves at once; "rps p50_us p99_us requests non2xx errors"
# with rps and counts summed, p50 the mean and p99 the worse of the two.
two_run() {
    wrk_run "$1" "$api1$path$2" "$half" >"$work/two.a" &
    a=$!
    wrk_run "$1" "$api2$path$2" "$half" >"$work/two.b"
    wait "$a"
    # Each replica's own figures, to the log: the report keeps the worse p99.
    echo "    $1, replica 1 / 2 (req/s, p99 µs): $(cut -d' ' -f1,3 "$work/two.a") / $(cut -d' ' -f1,3 "$work/two.b")" >&2
    awk 'NR == FNR { split($0, x); next } { split($0, y) }
        END { printf "%.0f %.0f %d %d %d %d\n", x[1] + y[1], (x[2] + y[2]) / 2,
              (x[3] > y[3] ? x[3] : y[3]), x[4] + y[4], x[5] + y[5], x[6] + y[6] }' \
        "$work/two.a" "$work/two.b"
}
two_get=$(two_run get /tasks/get)
check "$two_get"
two_create=$(two_run create /tasks)
check "$two_create"

# The two-replica task.get again with a fault that makes its tail on
# demand: every second the backend used last (the one a replica's batched
# reads run on) is stopped for BENCH_STALL_MS (SIGSTOP, then SIGCONT), as
# the kernel can keep a runnable backend waiting for a CPU on a saturated
# machine. A replica sends a stalled batch again on another connection
# (src/runtime/store/postgres/reads.rs); without that its p99 is the stall.
stall_backends() {
    stalled=""
    trap '[ -n "$stalled" ] && as_pg kill -CONT "$stalled"; exit 0' TERM
    # Nothing here may end the loop early (set -e): a backend that exited
    # between the query and the signal is skipped.
    while :; do
        stalled=$(pgc psql -X -q -At -c "SELECT pid FROM pg_stat_activity
            WHERE datname = 'agentteam' AND backend_type = 'client backend'
            AND pid <> pg_backend_pid() ORDER BY state_change DESC LIMIT 1" agentteam) || stalled=""
        if [ -n "$stalled" ] && as_pg kill -STOP "$stalled" 2>/dev/null; then
            sleep "$(awk "BEGIN { print $stall_ms / 1000 }")"
            as_pg kill -CONT "$stalled" 2>/dev/null || true
        fi
        stalled=""
        sleep "$(awk "BEGIN { print 1 - $stall_ms / 1000 }")"
    done
}
echo "==> two replicas, task.get with a backend stopped ${stall_ms} ms a second" >&2
stall_backends &
staller=$!
more_server_pids="$more_server_pids $staller"
two_stalled=$(two_run get /tasks/get)
if ! kill -TERM "$staller" 2>/dev/null; then
    echo "the loop that stops backends ended before its run did" >&2
    exit 1
fi
wait "$staller" 2>/dev/null || true
more_server_pids=${more_server_pids% "$staller"}
check "$two_stalled"

# The one-replica task.get against both yardsticks again, in alternating
# rounds of short runs: each round's ratios come from runs seconds apart,
# so a change in the machine's speed between the runs above (by a third,
# within minutes, on this machine: docs/performance.md, "The runtime's
# allocator") moves them less. The median of the rounds is reported.
# The same for task.create against `-N`, and for two replicas' task.get
# and task.create (the second replica is still serving): every ratio the
# report judges gets a median of runs seconds from its yardstick.
pairs=${BENCH_PAIRS:-3}
pair_prepared=""
pair_simple=""
pair_create=""
pair_two_prepared=""
pair_two_simple=""
pair_two_create=""
# share A B: A's req/s over B's tps, two decimals.
share() { awk "BEGIN { printf \"%.2f\", $(field "$1" 1) / $(field "$2" 1) }"; }
if [ "$pairs" -gt 0 ]; then
    echo "==> $pairs alternating rounds, 5 s each: pgbench -S prepared, -S simple, one replica's task.get; -N, task.create; two replicas' task.get, task.create" >&2
    long_seconds=$seconds
    seconds=5
    i=0
    while [ "$i" -lt "$pairs" ]; do
        round_prepared=$(pgbench_run -S)
        round_simple=$(pgbench_run -S simple)
        round_get=$(wrk_run get "$api$path/tasks/get" "$concurrency")
        check "$round_get"
        round_two_get=$(two_run get /tasks/get)
        check "$round_two_get"
        round_update=$(pgbench_run -N)
        round_create=$(wrk_run create "$api$path/tasks" "$concurrency")
        check "$round_create"
        round_two_create=$(two_run create /tasks)
        check "$round_two_create"
        pair_prepared="$pair_prepared $(share "$round_get" "$round_prepared")"
        pair_simple="$pair_simple $(share "$round_get" "$round_simple")"
        pair_two_prepared="$pair_two_prepared $(share "$round_two_get" "$round_prepared")"
        pair_two_simple="$pair_two_simple $(share "$round_two_get" "$round_simple")"
        pair_create="$pair_create $(share "$round_create" "$round_update")"
        pair_two_create="$pair_two_create $(share "$round_two_create" "$round_update")"
        i=$((i + 1))
    done
    seconds=$long_seconds
fi
# median LIST: the median of the numbers in LIST.
median() {
    echo "$1" | tr ' ' '\n' | grep . | sort -n |
        awk '{ a[NR] = $1 } END { printf "%.2f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# ------------------------------------------------------------------ report
ratio() { awk "BEGIN { printf \"%.2f\", $1 / $2 }"; }
us_ms() { awk "BEGIN { printf \"%.2f ms\", $1 / 1000 }"; }
verdict() { awk "BEGIN { print ($1 $2 $3) ? \"met\" : \"MISSED\" }"; }
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
fs=$(df -T "$work" | awk 'NR == 2 { print $2 " on " $1 }')
echo
echo "agentteam on PostgreSQL — $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "machine: $(nproc) CPUs ($cpu); PostgreSQL $("$pg_bin/postgres" --version | awk '{ print $3 }') on $fs (fsync on, synchronous_commit on); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
printf '%-36s %-12s %-20s %-7s %-18s %s\n' "measure" "req/s" "p50 / p99" "ratio" "target" "verdict"
row() { printf '%-36s %-12s %-20s %-7s %-18s %s\n' "$@"; }
row "pgbench -S (select-only), tps" "$(field "$pg_select" 1)" "$(us_ms "$(field "$pg_select" 2)") / $(us_ms "$(field "$pg_select" 3)")" "" "-" "-"
row "pgbench -S, -M simple, tps" "$(field "$pg_simple" 1)" "$(us_ms "$(field "$pg_simple" 2)") / $(us_ms "$(field "$pg_simple" 3)")" "" "-" "-"
row "pgbench -N (simple update), tps" "$(field "$pg_update" 1)" "$(us_ms "$(field "$pg_update" 2)") / $(us_ms "$(field "$pg_update" 3)")" "" "-" "-"
row "floor: 404 fallback, no store" "$(field "$one_static" 1)" "$(us_ms "$(field "$one_static" 2)") / $(us_ms "$(field "$one_static" 3)")" \
    "$(ratio "$(field "$one_static" 1)" "$(field "$pg_select" 1)")" "-" "-"
row "floor: /readyz, one SELECT 1" "$(field "$one_ready" 1)" "$(us_ms "$(field "$one_ready" 2)") / $(us_ms "$(field "$one_ready" 3)")" \
    "$(ratio "$(field "$one_ready" 1)" "$(field "$pg_select" 1)")" "-" "-"
for replicas in one two; do
    eval get=\$${replicas}_get
    eval create=\$${replicas}_create
    row "task.get, $replicas replica(s)" "$(field "$get" 1)" "$(us_ms "$(field "$get" 2)") / $(us_ms "$(field "$get" 3)")" \
        "$(ratio "$(field "$get" 1)" "$(field "$pg_select" 1)")" ">= 0.5x -S" \
        "$(verdict "$(field "$get" 1) / $(field "$pg_select" 1)" ">=" 0.5)"
    row "task.get, $replicas, vs -S -M simple" "" "" \
        "$(ratio "$(field "$get" 1)" "$(field "$pg_simple" 1)")" ">= 0.5x -S simple" \
        "$(verdict "$(field "$get" 1) / $(field "$pg_simple" 1)" ">=" 0.5)"
    row "task.get p99, $replicas replica(s)" "" "$(us_ms "$(field "$get" 3)")" "" "<= 20 ms" \
        "$(verdict "$(field "$get" 3)" "<=" 20000)"
    row "task.create, $replicas replica(s)" "$(field "$create" 1)" "$(us_ms "$(field "$create" 2)") / $(us_ms "$(field "$create" 3)")" \
        "$(ratio "$(field "$create" 1)" "$(field "$pg_update" 1)")" ">= 0.5x -N" \
        "$(verdict "$(field "$create" 1) / $(field "$pg_update" 1)" ">=" 0.5)"
    row "task.create p99, $replicas replica(s)" "" "$(us_ms "$(field "$create" 3)")" "" "<= 20 ms" \
        "$(verdict "$(field "$create" 3)" "<=" 20000)"
done
if [ "$pairs" -gt 0 ]; then
    row "task.get, one, alternating: -S" "" "" "$(median "$pair_prepared")" ">= 0.5x -S" \
        "$(verdict "$(median "$pair_prepared")" ">=" 0.5)"
    row "task.get, one, alternating: simple" "" "" "$(median "$pair_simple")" ">= 0.5x -S simple" \
        "$(verdict "$(median "$pair_simple")" ">=" 0.5)"
    row "task.get, two, alternating: -S" "" "" "$(median "$pair_two_prepared")" ">= 0.5x -S" \
        "$(verdict "$(median "$pair_two_prepared")" ">=" 0.5)"
    row "task.get, two, alternating: simple" "" "" "$(median "$pair_two_simple")" ">= 0.5x -S simple" \
        "$(verdict "$(median "$pair_two_simple")" ">=" 0.5)"
    row "task.create, one, alternating" "" "" "$(median "$pair_create")" ">= 0.5x -N" \
        "$(verdict "$(median "$pair_create")" ">=" 0.5)"
    row "task.create, two, alternating" "" "" "$(median "$pair_two_create")" ">= 0.5x -N" \
        "$(verdict "$(median "$pair_two_create")" ">=" 0.5)"
fi
row "task.get, two, a backend stalled" "$(field "$two_stalled" 1)" "$(us_ms "$(field "$two_stalled" 2)") / $(us_ms "$(field "$two_stalled" 3)")" \
    "" "(a fault: no target)" "-"
echo
echo "each run: $seconds s at $concurrency connections (two replicas: $half each, at once, --workers $two_workers each), on the"
echo "machine that also runs PostgreSQL; pgbench -j2 at scale $scale (-M prepared but for the
-M simple row); the board held $seed_tasks"
echo "seeded tasks plus those task.create made."
if [ "$pairs" -gt 0 ]; then
    echo "alternating rounds ($pairs, 5 s runs, the median reported): one replica's task.get"
    echo "/ -S prepared$pair_prepared, / -S simple$pair_simple; two replicas' /"
    echo "-S prepared$pair_two_prepared, / -S simple$pair_two_simple; task.create / -N, one"
    echo "replica$pair_create, two$pair_two_create."
fi
