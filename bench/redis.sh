#!/usr/bin/env bash
# Compares loadgate's TCP client with redis-benchmark against the same
# loopback redis-server at the same client count: PING, SET and GET, each
# tool alternating for REPEATS rounds. Prints rps per command and round.
#
#   bench/redis.sh          # 50 clients, 100000 requests per command, 3 rounds
#   REQUESTS=100000 REPEATS=3 bench/redis.sh
#
# Needs redis-server and redis-tools (apt-get install redis-server redis-tools).
set -euo pipefail
# The scenario fixes 50 clients (its matrix), as redis-benchmark -c 50 here.
clients=50; requests=${REQUESTS:-100000}; repeats=${REPEATS:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
redis_pid=""
cleanup() { if [ -n "$redis_pid" ]; then kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; fi; rm -rf "$work"; }
trap cleanup EXIT

for tool in redis-server redis-benchmark; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install redis-server redis-tools" >&2; exit 2; }
done
port=$((30000 + RANDOM % 20000))
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
redis_pid=$!
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
(cd "$root" && go build -o "$work/loadgate" ./cmd/loadgate)

echo "redis-server on 127.0.0.1:$port, $clients clients, $requests requests per command"
echo
echo "| round | command | redis-benchmark rps | loadgate rps | loadgate errors |"
echo "|---:|---|---:|---:|---:|"
for round in $(seq "$repeats"); do
  rb=$(timeout 120 redis-benchmark -h 127.0.0.1 -p "$port" -c "$clients" -n "$requests" -t ping_inline,set,get -q 2>/dev/null | tr '\r' '\n')
  timeout 300 "$work/loadgate" run --no-progress -o "$work/out" --var "host=127.0.0.1:$port" \
    --var "requests=$requests" "$root/examples/redis/scenario.yaml" >/dev/null 2>&1 || true
  for cmd in ping set get; do
    case $cmd in ping) key="PING_INLINE" ;; set) key="SET" ;; get) key="GET" ;; esac
    rbrps=$(printf '%s\n' "$rb" | awk -v k="$key:" '$1 == k { print $2 }' | tail -1)
    read -r lgrps lgerr < <(python3 - "$work/out/results.json" "$cmd" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for c in doc["scenarios"][0]["cases"]:
    if c["target"] == sys.argv[2]:
        print("%.0f %d" % (c["stats"]["rps"], c["stats"]["failed"]))
        break
else:
    print("error -")
PY
)
    echo "| $round | $cmd | ${rbrps:-error} | $lgrps | $lgerr |"
  done
done
