#!/bin/sh
# End-to-end demo: build, start agentteam-runtime, configure a profile with
# `agentteam-runtime quickstart`, run a real task session with the agentteam
# CLI (create → list → set_claim → checkpoint → update → get → delete),
# printing each JSON result, then stop the runtime.
#
#   scripts/demo.sh                  temp store and temp credential dir (leaves nothing behind)
#   scripts/demo.sh --default-store  the default store (or AGENTTEAM_RUNTIME_DB): leaves the
#                                    demo workspace, agents and channel there, as
#                                    `agentteam-runtime quickstart` would; profiles untouched
#
# Credentials always go to a temporary directory: the demo's server stops on
# exit, so a profile pointing at it would only break later commands.
# Needs only a Rust toolchain and a POSIX shell.
set -eu

use_default_store=false
case "${1:-}" in
    "") ;;
    --default-store) use_default_store=true ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "usage: $0 [--default-store]" >&2; exit 2 ;;
esac

cd "$(dirname "$0")/.."
echo "==> building agentteam and agentteam-runtime" >&2
cargo build --quiet --bins
target_dir=$(cargo metadata --format-version 1 --no-deps 2>/dev/null |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
bin="${target_dir:-target}/debug"
runtime="$bin/agentteam-runtime"
agentteam="$bin/agentteam"

work=$(mktemp -d "${TMPDIR:-/tmp}/agentteam-demo.XXXXXX")
server_pid=""
cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

if $use_default_store; then
    db_args=""
else
    db_args="--db $work/runtime.db"
fi
# The profile quickstart writes names this run's port and binaries; it goes
# away with the run, whatever the store.
AGENTTEAM_CONFIG_DIR="$work/config"
export AGENTTEAM_CONFIG_DIR

echo "==> starting agentteam-runtime on a free port (log: $work/runtime.log)" >&2
# shellcheck disable=SC2086 # db_args is empty or two words without spaces in the temp path.
"$runtime" $db_args serve --listen 127.0.0.1:0 >"$work/listen.json" 2>"$work/runtime.log" &
server_pid=$!
tries=0
until grep -q '"listen"' "$work/listen.json" 2>/dev/null; do
    tries=$((tries + 1))
    if [ "$tries" -gt 100 ] || ! kill -0 "$server_pid" 2>/dev/null; then
        echo "agentteam-runtime did not start:" >&2
        cat "$work/runtime.log" >&2
        exit 1
    fi
    sleep 0.1
done
cat "$work/listen.json"
listen=$(sed -n 's/.*"listen": *"\([^"]*\)".*/\1/p' "$work/listen.json")

echo "==> agentteam-runtime quickstart --api-url http://$listen" >&2
# shellcheck disable=SC2086
"$runtime" $db_args quickstart --api-url "http://$listen"

# Runs one action, printing its input (stderr) and its JSON result (stdout).
step() {
    verb=$1
    input=$2
    echo "==> echo '$input' | agentteam exec task $verb -" >&2
    result=$(printf '%s' "$input" | "$agentteam" exec task "$verb" -)
    printf '%s\n' "$result"
}

# The first value of a number or string field in $result (the CLI's own output).
field() {
    printf '%s' "$result" | tr ',{}' '\n\n\n' |
        sed -n "s/^ *\"$1\": *\"\{0,1\}\([^\"]*\)\"\{0,1\} *$/\1/p" | head -n 1
}

step create '{"channel": "demo", "tasks": [{"title": "Try the agentteam CLI", "description": "A demo task from scripts/demo.sh", "priority": "high", "labels": ["demo"], "checklist": [{"text": "create"}, {"text": "claim"}]}]}'
number=$(field number)
step list '{"channel": "demo", "filters": {"labels": ["demo"]}, "limit": 5}'
step set_claim "{\"channel\": \"demo\", \"numbers\": [$number], \"claimed\": true}"
step checkpoint "{\"channel\": \"demo\", \"number\": $number, \"summary\": \"Claimed and started; the CLI works end to end.\"}"
updated_at=$(field updated_at)
step update "{\"channel\": \"demo\", \"number\": $number, \"status\": \"done\", \"checklist\": [{\"text\": \"create\", \"done\": true}, {\"text\": \"claim\", \"done\": true}], \"expected_updated_at\": \"$updated_at\"}"
step get "{\"channel\": \"demo\", \"number\": $number}"
step delete "{\"channel\": \"demo\", \"number\": $number}"

echo "==> stopping agentteam-runtime" >&2
kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=""
echo "==> done" >&2
