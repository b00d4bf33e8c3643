-- wrk script for scripts/bench.sh: the same request shape the CLI sends
-- (POST, JSON body, bearer token), one body per request.
--
--   BENCH_KIND     get | create | static (static: the get request sent to an
--                  unknown route, answered by the 404 JSON fallback) | list
--                  (GET of the URL given to wrk, query string and all)
--   BENCH_TOKEN    the agent's bearer token
--   BENCH_CHANNEL  the board (default bench)
--   BENCH_TASKS    gets cycle over task numbers 1..BENCH_TASKS (default 1000)
--
-- done() prints one machine-readable line:
--   RESULT <requests/s> <p50 µs> <p99 µs> <requests> <non-2xx> <socket errors>

local kind = os.getenv("BENCH_KIND") or "get"
local token = os.getenv("BENCH_TOKEN") or ""
local channel = os.getenv("BENCH_CHANNEL") or "bench"
local tasks = tonumber(os.getenv("BENCH_TASKS") or "1000")

wrk.method = kind == "list" and "GET" or "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. token

local n = 0
local id = 0

function setup(thread)
    id = id + 1
    thread:set("offset", id * 7919)
end

function request()
    n = n + 1
    local body
    if kind == "list" then
        return wrk.format()
    elseif kind == "create" then
        body = string.format('{"channel":"%s","tasks":[{"title":"load task %d"}]}', channel, n)
    else
        body = string.format('{"channel":"%s","number":%d}', channel, (n + (offset or 0)) % tasks + 1)
    end
    return wrk.format(nil, nil, nil, body)
end

function done(summary, latency, requests)
    local e = summary.errors
    io.write(string.format("RESULT %.0f %d %d %d %d %d\n",
        summary.requests / (summary.duration / 1e6),
        latency:percentile(50), latency:percentile(99),
        summary.requests, e.status, e.connect + e.read + e.write + e.timeout))
end
