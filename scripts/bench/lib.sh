# Shared by scripts/bench*.sh and scripts/deploy-check.sh (sourced, POSIX
# sh): the tool check, the release build, a runtime on a temp store bound to
# 127.0.0.1:0, an agent with a token, and an agentteam profile for it in a
# temp AGENTTEAM_CONFIG_DIR; a PostgreSQL cluster of its own. Stops what it
# started and removes the temp dir on exit.
#
# BENCH_BIN_DIR=DIR uses prebuilt agentteam and agentteam-runtime from DIR
# instead of `cargo build --release` (to compare two builds).

# need_tools TOOL…: installs the missing ones with apt-get when root, else
# names the one command that does.
need_tools() {
    missing=""
    for tool in "$@"; do
        case $tool in
            time) [ -x /usr/bin/time ] || missing="$missing time" ;;
            *) command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool" ;;
        esac
    done
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "==> apt-get install -y$missing" >&2
        # shellcheck disable=SC2086 # one word per package
        apt-get install -y $missing >/dev/null 2>&1 || {
            apt-get update >/dev/null && apt-get install -y $missing >/dev/null
        }
    else
        echo "missing:$missing — install with: sudo apt-get install -y$missing" >&2
        exit 2
    fi
}

# build: sets $agentteam and $runtime.
build() {
    if [ -n "${BENCH_BIN_DIR:-}" ]; then
        bin=$BENCH_BIN_DIR
    else
        echo "==> cargo build --release" >&2
        cargo build --release --quiet --bins
        target_dir=$(cargo metadata --format-version 1 --no-deps 2>/dev/null |
            sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
        bin="${target_dir:-target}/release"
    fi
    runtime="$bin/agentteam-runtime"
    agentteam="$bin/agentteam"
}

cleanup() {
    for pid in ${server_pid:-} ${more_server_pids:-}; do
        if kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    # A script that started more (a database server) stops it here.
    if command -v bench_cleanup >/dev/null 2>&1; then bench_cleanup; fi
    [ -n "${work:-}" ] && rm -rf "$work"
}

# serve_on DB LOG: starts one more `agentteam-runtime serve` on DB (with
# $serve_flags, if set); sets $serve_pid and $serve_api
# (http://127.0.0.1:PORT) once it listens.
serve_on() {
    # shellcheck disable=SC2086 # flags and their values, one word each
    "$runtime" --db "$1" serve --listen 127.0.0.1:0 ${serve_flags:-} >"$2.listen.json" 2>"$2" &
    serve_pid=$!
    tries=0
    until grep -q '"listen"' "$2.listen.json" 2>/dev/null; do
        tries=$((tries + 1))
        if [ "$tries" -gt 100 ] || ! kill -0 "$serve_pid" 2>/dev/null; then
            echo "agentteam-runtime did not start:" >&2
            cat "$2" >&2
            exit 1
        fi
        sleep 0.1
    done
    serve_api="http://$(jq -r .listen "$2.listen.json")"
}

# make_work: sets $work, a temp dir removed (with everything started) on exit.
make_work() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/agentteam-bench.XXXXXX")
    chmod 755 "$work"
    server_pid=""
    trap cleanup EXIT
    trap 'exit 130' INT TERM
}

# start_runtime CHANNEL…: sets $work (unless set), $db (unless set: a temp
# SQLite file), $api, $base, $ws, $agent, $token and $server_pid; creates
# the channels; logs the profile in.
start_runtime() {
    [ -n "${work:-}" ] || make_work
    AGENTTEAM_CONFIG_DIR="$work/config"
    export AGENTTEAM_CONFIG_DIR
    db=${db:-$work/runtime.db}
    echo "==> agentteam-runtime serve on $db" >&2
    serve_on "$db" "$work/runtime.log"
    server_pid=$serve_pid
    api=$serve_api
    ws=$("$runtime" --db "$db" workspace create --name bench | jq -r .workspace_id)
    "$runtime" --db "$db" agent create --workspace "$ws" --handle bench >"$work/agent.json"
    agent=$(jq -r .agent_id "$work/agent.json")
    token=$(jq -r .token "$work/agent.json")
    for channel in "$@"; do
        "$runtime" --db "$db" channel create --workspace "$ws" --name "$channel" >/dev/null
    done
    printf %s "$token" | "$agentteam" auth login --api-url "$api" --workspace "$ws" \
        --agent "$agent" --token-stdin >/dev/null
    base="$api/api/v1/workspaces/$ws/agents/$agent/runtime"
}

# seed CHANNEL FIRST COUNT: creates tasks FIRST..FIRST+COUNT-1 on CHANNEL with
# the CLI's --batch, 50 titles a line. Titles carry searchable words:
# "urgent" in 1 task of 100, "cache" in 1 of 10, "task" in all.
seed() {
    jq -nc --arg c "$1" --argjson first "$2" --argjson n "$3" '
        range(0; ($n + 49) / 50 | floor) as $b
        | {channel: $c, tasks: [range($b * 50; [$b * 50 + 50, $n] | min)
            | . + $first
            | {title: "\(if . % 100 == 0 then "urgent " else "" end)\(if . % 10 == 0 then "cache " else "" end)task \(.) of the board"}]}' \
        >"$work/seed.ndjson"
    "$agentteam" exec task create --batch --concurrency 4 "$work/seed.ndjson" >"$work/seed.out"
    made=$(jq -s '[.[].data.tasks | length] | add' "$work/seed.out")
    if [ "$made" != "$3" ]; then
        echo "seeding $1 made $made tasks, not $3:" >&2
        grep -m 3 '"error"' "$work/seed.out" >&2 || true
        exit 1
    fi
}

# find_postgres: sets $pg_bin to the newest PostgreSQL server binaries,
# installing Debian's package when root, else naming the command that does.
find_postgres() {
    pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    if [ -n "$pg_bin" ] && [ -x "$pg_bin/initdb" ]; then return 0; fi
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "==> apt-get install -y postgresql" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql >/dev/null
        pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    else
        echo "missing: PostgreSQL server binaries — install with: sudo apt-get install -y postgresql" >&2
        exit 2
    fi
}

# start_postgres USER [SETTINGS]: initdb and start a cluster of its own in
# $work/pg (data, Unix socket and log; trust auth for USER, no TCP) and
# sets $pgdir, the socket directory. PostgreSQL refuses to run as root, so
# as root its processes run as `postgres`. stop_postgres stops it.
start_postgres() {
    pgdir="$work/pg"
    mkdir -p "$pgdir"
    as_pg() { "$@"; }
    if [ "$(id -u)" = 0 ]; then
        chown postgres:postgres "$pgdir"
        as_pg() { runuser -u postgres -- "$@"; }
    fi
    echo "==> PostgreSQL $("$pg_bin/postgres" --version | awk '{ print $3 }') on $pgdir" >&2
    as_pg "$pg_bin/initdb" -D "$pgdir/data" -U "$1" --auth=trust --no-sync >"$work/initdb.log" 2>&1
    as_pg "$pg_bin/pg_ctl" -D "$pgdir/data" -l "$pgdir/postgres.log" -w \
        -o "-c listen_addresses='' -c unix_socket_directories=$pgdir ${2:-}" start >/dev/null
}

stop_postgres() {
    if [ -n "${pgdir:-}" ] && [ -f "$pgdir/data/postmaster.pid" ]; then
        as_pg "$pg_bin/pg_ctl" -D "$pgdir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
}
