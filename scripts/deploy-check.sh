#!/bin/sh
# Runs the nginx example of docs/deploy.md for real: a temp PostgreSQL, two
# agentteam-runtime replicas on 127.0.0.1:8781 and :8782 (the ports the
# example names), nginx on :8780 with the example's upstream, then:
#   1. creates and reads tasks through nginx, spread over both replicas;
#   2. kills one replica with SIGKILL;
#   3. checks that reads and creates through nginx keep succeeding and that
#      every task created before and after is there.
# Everything runs in a temp dir and is stopped and removed on exit.
#
#   scripts/deploy-check.sh
#
# Needs nginx, PostgreSQL's server binaries, curl and jq; as root it
# installs what is missing (apt-get) and runs PostgreSQL as `postgres`.
# BENCH_BIN_DIR=DIR uses prebuilt binaries, as scripts/bench.sh does.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."

# shellcheck source=scripts/bench/lib.sh
. "$here/bench/lib.sh"
need_tools nginx curl jq
find_postgres
build
make_work
nginx_pid=""
bench_cleanup() {
    [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null || true
    stop_postgres
}
start_postgres deploy
"$pg_bin/createdb" -h "$pgdir" -U deploy agentteam
db="postgres://deploy@/agentteam?host=$pgdir"

# Two replicas on the example's ports.
serve_replica() {
    "$runtime" --db "$db" serve --listen "127.0.0.1:$1" >"$work/r$1.json" 2>"$work/r$1.log" &
    echo $!
}
r1=$(serve_replica 8781)
r2=$(serve_replica 8782)
more_server_pids="$r1 $r2"
for port in 8781 8782; do
    tries=0
    until curl -sf "http://127.0.0.1:$port/readyz" >/dev/null; do
        tries=$((tries + 1))
        [ "$tries" -lt 100 ] || { cat "$work/r$port.log" >&2; exit 1; }
        sleep 0.1
    done
done

echo "==> nginx with the example upstream of docs/deploy.md" >&2
mkdir -p "$work/nginx"
{
    echo "pid $work/nginx/nginx.pid;"
    echo "error_log $work/nginx/error.log;"
    echo "events {}"
    echo "http {"
    echo "    access_log off;"
    for t in client_body proxy fastcgi uwsgi scgi; do
        echo "    ${t}_temp_path $work/nginx/$t;"
    done
    sed -n '/BEGIN nginx example/,/END nginx example/p' docs/deploy.md | sed '1,2d;$d' | sed '$d'
    echo "}"
} >"$work/nginx/nginx.conf"
nginx -t -q -p "$work/nginx" -c "$work/nginx/nginx.conf"
nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -g 'daemon off;' &
nginx_pid=$!
sleep 0.5

ws=$("$runtime" --db "$db" workspace create --name deploy | jq -r .workspace_id)
"$runtime" --db "$db" channel create --workspace "$ws" --name eng >/dev/null
"$runtime" --db "$db" agent create --workspace "$ws" --handle ops >"$work/agent.json"
agent=$(jq -r .agent_id "$work/agent.json")
token=$(jq -r .token "$work/agent.json")
lb="http://127.0.0.1:8780/api/v1/workspaces/$ws/agents/$agent/runtime"
call() {
    curl -s -o "$work/answer.json" -w '%{http_code}' -X POST \
        -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        --data "$2" "$lb$1"
}
create_some() {
    i=0
    while [ "$i" -lt "$2" ]; do
        code=$(call /tasks "{\"channel\":\"eng\",\"tasks\":[{\"title\":\"$1 $i\"}]}")
        [ "$code" = 201 ] || { echo "create through nginx answered $code: $(cat "$work/answer.json")" >&2; exit 1; }
        i=$((i + 1))
    done
}
echo "==> 20 creates and reads through nginx" >&2
create_some before 20
for n in 1 5 20; do
    [ "$(call /tasks/get "{\"channel\":\"eng\",\"number\":$n}")" = 200 ]
done
served1=$(grep -c 'status=201' "$work/r8781.log" || true)
served2=$(grep -c 'status=201' "$work/r8782.log" || true)
[ "$served1" -gt 0 ] && [ "$served2" -gt 0 ] || {
    echo "nginx sent the 20 creates to one replica only ($served1 + $served2 logged)" >&2
    exit 1
}

echo "==> an HTTP/1.0 client without Host, through nginx" >&2
# nginx passes HTTP/1.1 to the replicas, with the example's server_name as
# Host; without one the replicas would refuse it (400).
code=$(curl -s -o /dev/null -w '%{http_code}' --http1.0 -H 'Host:' "http://127.0.0.1:8780/readyz")
[ "$code" = 200 ] || { echo "/readyz over HTTP/1.0 without Host answered $code" >&2; exit 1; }

echo "==> kill -9 the replica on 8781; 20 more through nginx" >&2
kill -9 "$r1"
wait "$r1" 2>/dev/null || true
create_some after 20
for n in 1 21 40; do
    [ "$(call /tasks/get "{\"channel\":\"eng\",\"number\":$n}")" = 200 ]
done
count=$(curl -s -H "Authorization: Bearer $token" "$lb/tasks?channel=eng&limit=100" | jq '.items | length')
[ "$count" = 40 ] || { echo "expected 40 tasks, listed $count" >&2; exit 1; }
echo "deploy check passed: nginx spread 20 creates over both replicas ($served1 + $served2 logged),"
echo "then served 20 creates and the reads with one replica killed; 40 tasks listed."
