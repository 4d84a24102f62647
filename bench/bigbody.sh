#!/usr/bin/env bash
# Sends a large body_file (10 MiB) from 128 workers to a loopback sink
# (bench/bigbody/sink: reads and drops every body, answers 204) on every
# engine that can carry it, and prints loadgate's peak RSS for each: the
# body is read once per target and shared by every worker, step and
# connection, so the peak must stay far below 128 copies of it.
#
#   bench/bigbody.sh
#
# Environment: BODY_MIB (default 10), MAX_RSS_MIB (250), LOADGATE (a
# loadgate binary to use instead of building this checkout).
# Exit 0 when every run completed under the limit, 1 otherwise, 2 on setup errors.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

body_mib=${BODY_MIB:-10} max_mib=${MAX_RSS_MIB:-250}
usage() { sed -n '2,12s/^# \{0,1\}//p' "$0" >&2; exit 2; }
[ $# -eq 0 ] || usage
for n in "$body_mib" "$max_mib"; do [[ $n =~ ^[1-9][0-9]*$ ]] || usage; done

work=$(mktemp -d)
sink_pid=""
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
  if [ -n "$sink_pid" ]; then kill "$sink_pid" 2>/dev/null || true; wait "$sink_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

need_apt time /usr/bin/time || { say "GNU time is required"; exit 2; }
build_loadgate "$work/loadgate" || { say "loadgate did not build"; exit 2; }
(cd "$bench_root" && go build -o "$work/sink" ./bench/bigbody/sink) || { say "the sink did not build"; exit 2; }
head -c $((body_mib << 20)) /dev/urandom >"$work/body.bin"

# sink_start starts the sink on a free loopback port; it sets port.
port=""
sink_start() {
  local try
  for try in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 12000))
    "$work/sink" -addr "127.0.0.1:$port" >"$work/sink.log" 2>&1 &
    sink_pid=$!
    for _ in $(seq 50); do
      grep -q '^sink: ' "$work/sink.log" 2>/dev/null && return 0
      kill -0 "$sink_pid" 2>/dev/null || break
      sleep 0.1
    done
    say "the sink did not start on port $port (try $try): $(tail -n 1 "$work/sink.log" 2>/dev/null)"
    kill "$sink_pid" 2>/dev/null || true; wait "$sink_pid" 2>/dev/null || true; sink_pid=""
  done
  return 1
}
sink_start || exit 2

status=0
# measure ENGINE SCENARIO [FLAG...] runs loadgate once and prints one
# Markdown row; a failed run or a peak at or above the limit sets status.
measure() {
  local engine=$1 scen=$2 out="$work/out.txt" tf="$work/time.txt" rc=0 rss
  shift 2
  /usr/bin/time -f "%M" -o "$tf" timeout -k 5 120 "$work/loadgate" run --no-progress -o "" \
    --var "port=$port" --var "body=$work/body.bin" "$@" "$bench_root/bench/bigbody/$scen" >"$out" 2>&1 </dev/null || rc=$?
  rss=$(tail -n 1 "$tf" 2>/dev/null)
  [[ $rss =~ ^[0-9]+$ ]] || rss=""
  if [ "$rc" != 0 ] || [ -z "$rss" ] || [ "$rss" -ge $((max_mib * 1024)) ]; then status=1; fi
  if [ "$rc" != 0 ]; then say "$engine: loadgate failed (exit $rc):"; tail -n 5 "$out" >&2; fi
  awk -v e="$engine" -v s="$scen" -v f="$*" -v rc="$rc" -v rss="$rss" '
    /^Complete requests:/ {req = $3} /^Failed requests:/ {fail = $3}
    END {
      printf "| %s | `%s%s` | %s | %s | %s | %s |\n", e, s, f == "" ? "" : " " f,
        req == "" ? "n/a" : req, fail == "" ? "n/a" : fail,
        rss == "" ? "n/a" : sprintf("%.0f MiB", rss / 1024), rc
    }' "$out"
}

echo "## loadgate sending a $body_mib MiB body_file from 128 workers"
echo
echo "- machine: $(machine)"
echo "- loadgate $("$work/loadgate" version | awk '{print $NF}'), $(go version | awk '{print $3}')"
echo
echo "| engine | scenario | requests | failed | peak RSS | exit |"
echo "|---|---|---:|---:|---:|---:|"
measure "event loop (HTTP/1.1)" http1.yaml
measure "workers (HTTP/1.1)" http1.yaml --workers
measure "flow step (HTTP/1.1)" flow.yaml
measure "HTTP/2" http2.yaml
measure "flow step (HTTP/2)" flow-http2.yaml
echo
if [ "$status" = 0 ]; then echo "PASS: every peak RSS < $max_mib MiB"; else echo "FAIL: a run failed or a peak RSS ≥ $max_mib MiB"; fi
exit "$status"
