#!/usr/bin/env bash
# Fuzz the real agentteam-runtime with schemathesis, a third-party OpenAPI
# fuzzer, against the checked-in openapi.json as the server serves it.
#
# Installs schemathesis from PyPI into a virtual environment, starts the
# runtime on a fresh SQLite store with one workspace, two agents, a board
# and a few tasks, and runs the checks below with a fixed seed and a bounded
# number of examples per operation. Exits non-zero on any failure; the last
# line is schemathesis's totals.
#
#   scripts/schemathesis.sh                 # what CI runs (about a minute, plus installing schemathesis the first time)
#   ST_MAX_EXAMPLES=500 ST_SEED=7 scripts/schemathesis.sh   # longer, another seed
#
# Environment: ST_MAX_EXAMPLES (default 60), ST_SEED (default 1), ST_VENV
# (default target/schemathesis-venv; reused between runs), ST_VERSION (the
# schemathesis requirement, default ">=4.32,<5"), ST_EXTRA (more arguments
# for `schemathesis run`, e.g. "--max-time 1800"; it runs in a temporary
# directory, so give paths in them absolute). Uses the debug build in
# $CARGO_TARGET_DIR (or target/), building it first.
set -euo pipefail
cd "$(dirname "$0")/.."

max_examples=${ST_MAX_EXAMPLES:-60}
seed=${ST_SEED:-1}
target=${CARGO_TARGET_DIR:-target}
venv=${ST_VENV:-$target/schemathesis-venv}
version=${ST_VERSION:->=4.32,<5}

if [ ! -x "$venv/bin/schemathesis" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis$version"
fi
"$venv/bin/schemathesis" --version

cargo build --quiet --bin agentteam-runtime
runtime=$target/debug/agentteam-runtime

work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
export AGENTTEAM_RUNTIME_DB=$work/runtime.db
export RUST_LOG=warn   # the runtime logs warnings only: a request line per fuzzed call is noise

field() { "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

workspace=$("$runtime" workspace create --name fuzz | field workspace_id)
alice=$("$runtime" agent create --workspace "$workspace" --handle alice)
bob=$("$runtime" agent create --workspace "$workspace" --handle bob)
# The registry's examples, which schemathesis sends first, use board `demo`
# and member `@demo-peer`.
"$runtime" agent create --workspace "$workspace" --handle demo-peer >/dev/null
"$runtime" channel create --workspace "$workspace" --name eng >/dev/null
"$runtime" channel create --workspace "$workspace" --name demo >/dev/null
agent=$(field agent_id <<<"$alice")
token=$(field token <<<"$alice")
# An open workflow callback, so idempotent creates (and their replays) succeed.
callback=$("$runtime" callback open --workspace "$workspace" --agent "$agent")

"$runtime" serve --listen 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
server_pid=$!
for _ in $(seq 100); do
  [ -s "$work/serve.out" ] && break
  sleep 0.1
done
address=$(head -n1 "$work/serve.out" | field listen)
base=http://$address

# Seed the boards: on `eng` tasks 1–8, some assigned, 2 with subtasks 7 and
# 8; on `demo` tasks 1–12 (the examples name task 12), created by bob so
# that the delete examples are refused (not_task_creator) and leave task 12
# to the update examples.
seed_post() { # AGENT-JSON BODY: one task_create as that agent (stdlib only, no curl)
  "$venv/bin/python" - "$base" "$workspace" "$1" "$2" <<'PY'
import json, sys, urllib.request
base, workspace, agent, body = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
request = urllib.request.Request(
    f"{base}/api/v1/workspaces/{workspace}/agents/{agent['agent_id']}/runtime/tasks",
    data=body.encode(), method="POST",
    headers={"Authorization": f"Bearer {agent['token']}", "Content-Type": "application/json"})
urllib.request.urlopen(request).read()
PY
}
seed_post "$alice" '{"channel": "eng", "tasks": [{"title": "Fix login timeout", "priority": "high", "labels": ["auth"], "assignee": "@alice"}]}'
seed_post "$alice" '{"channel": "eng", "tasks": [{"title": "Ship the release", "assignee": "@bob", "description": "Tag, build, publish."}]}'
seed_post "$alice" '{"channel": "eng", "tasks": [{"title": "Triage"}, {"title": "Write docs"}, {"title": "Review the API"}, {"title": "Plan the sprint"}]}'
seed_post "$alice" '{"channel": "eng", "parent": 2, "tasks": [{"title": "Build"}, {"title": "Publish"}]}'
seed_post "$bob" '{"channel": "demo", "tasks": [{"title": "One"}, {"title": "Two"}, {"title": "Three"}, {"title": "Four"}, {"title": "Five"}, {"title": "Six"}, {"title": "Seven"}, {"title": "Eight"}, {"title": "Nine"}, {"title": "Ten"}, {"title": "Eleven"}, {"title": "Twelve"}]}'

export AGENTTEAM_ST_TOKEN=$token AGENTTEAM_ST_WORKSPACE=$workspace AGENTTEAM_ST_AGENT=$agent AGENTTEAM_ST_BOARD=eng
AGENTTEAM_ST_RUN=$(field workflow_run_id <<<"$callback")
AGENTTEAM_ST_EFFECT=$(field callback_effect_id <<<"$callback")
export AGENTTEAM_ST_RUN AGENTTEAM_ST_EFFECT
export SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH=$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}

# The config with the variables above filled in (schemathesis substitutes
# them in some settings only, not in dictionary values).
"$venv/bin/python" -c 'import os, re, sys; sys.stdout.write(re.sub(r"\$\{(\w+)\}", lambda m: os.environ[m.group(1)], sys.stdin.read()))' \
  <scripts/schemathesis.toml >"$work/schemathesis.toml"

log=$work/schemathesis.log
status=0
# Run in the temporary directory: hypothesis keeps files in the current one.
schemathesis=$(cd "$venv/bin" && pwd)/schemathesis
# shellcheck disable=SC2086 # ST_EXTRA is a list of arguments
(cd "$work" && "$schemathesis" --config-file "$work/schemathesis.toml" run "$base/api/v1/openapi.json" \
  --url "$base" \
  --checks not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance,response_headers_conformance,negative_data_rejection,ignored_auth \
  --seed "$seed" --max-examples "$max_examples" --workers 2 \
  ${ST_EXTRA:-}) 2>&1 | tee "$log" || status=$?

if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "agentteam-runtime died during the run:" >&2
  cat "$work/serve.err" >&2
  status=1
fi
echo "schemathesis totals: $(grep -E '^ *[0-9]+ generated' "$log" | tail -n 1 | sed 's/^ *//')"
exit "$status"
