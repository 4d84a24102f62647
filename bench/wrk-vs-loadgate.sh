#!/usr/bin/env bash
# Compares loadgate's closed model with wrk against the same loopback nginx:
# same connection count, same duration, nginx pinned to core 0 and the load
# tool to core 1 when there are two cores. Requests are counted by nginx
# (stub_status) as well as by each tool; CPU is user+sys of the tool.
#
#   bench/wrk-vs-loadgate.sh [CONNECTIONS] [SECONDS] [REPEATS]
#
# Needs nginx (nginx-light), wrk and GNU time: apt-get install nginx-light wrk time
set -euo pipefail
conns=${1:-50}; secs=${2:-10}; repeats=${3:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
nginx_pid=""
cleanup() { [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

for tool in nginx wrk /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install nginx-light wrk time" >&2; exit 2; }
done
pin_server=""; pin_tool=""
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then pin_server="taskset -c 0"; pin_tool="taskset -c 1"; fi

sed "s#@DIR@#$work#g; s#@PORT@#$port#g" "$root/bench/nginx.conf.in" > "$work/nginx.conf"
$pin_server nginx -p "$work" -c "$work/nginx.conf" &
nginx_pid=$!
for _ in $(seq 50); do curl -fs "http://127.0.0.1:$port/" >/dev/null 2>&1 && break; sleep 0.1; done

(cd "$root" && go build -o "$work/loadgate" ./cmd/loadgate)
cat > "$work/scenario.yaml" <<YAML
version: 1
name: bench
targets:
  - name: nginx
    http: { url: "http://127.0.0.1:$port/", keepalive: true }
phases:
  - name: measured
    duration: ${secs}s
    concurrency: $conns
YAML

served() { curl -fs "http://127.0.0.1:$port/stub" | awk '/^ [0-9]/ {print $3}'; }

# run TOOL → prints "tool_rps server_rps cpu_us_per_req rss_kb"
measure() {
  local name=$1; shift
  local before after cpu
  before=$(served)
  /usr/bin/time -f "%U %S %M" -o "$work/time.$name" $pin_tool "$@" > "$work/out.$name" 2>&1 || true
  after=$(served)
  local n=$((after - before - 1))
  read -r u s rss < "$work/time.$name"
  local tool_rps
  case $name in
    wrk) tool_rps=$(awk '/^Requests\/sec/ {print $2}' "$work/out.$name") ;;
    loadgate) tool_rps=$(awk '/^Requests per second/ {print $4}' "$work/out.$name") ;;
  esac
  awk -v n="$n" -v s="$secs" -v u="$u" -v sy="$s" -v r="$rss" -v t="$tool_rps" \
    'BEGIN { printf "%s %.0f %.2f %d\n", t, n/s, (u+sy)*1e6/n, r }'
}

echo "| tool | run | rps (tool) | rps (nginx count) | CPU µs/request | peak RSS KiB |"
echo "|---|---|---|---|---|---|"
for i in $(seq "$repeats"); do
  read -r t n c r < <(measure wrk wrk -t1 -c"$conns" -d"${secs}s" "http://127.0.0.1:$port/")
  echo "| wrk -t1 -c$conns | $i | $t | $n | $c | $r |"; [ -n "${BENCH_VERBOSE:-}" ] && cat "$work/out.wrk" >&2
  read -r t n c r < <(measure loadgate "$work/loadgate" run --no-progress -o "" "$work/scenario.yaml")
  echo "| loadgate c=$conns | $i | $t | $n | $c | $r |"
done
