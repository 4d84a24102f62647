#!/usr/bin/env bash
# How steady the server's CPU per request is beside its requests per
# second: RUNS runs of one scenario against `loadgate serve` on 127.0.0.1,
# the server watched by `monitor: { pid }`, and the coefficient of
# variation (standard deviation over mean) of rps and of
# server.cpu_per_request over them. Run it quiet, then under
# ../shared/tools/busy (or any other load) to see which figure a shared
# CI runner moves less.
#
#   bench/cost.sh [-n RUNS] [-d DURATION] [-c CONCURRENCY]
#
# LOADGATE names the binary; default: built from this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source-path=SCRIPTDIR source=lib.sh
source bench/lib.sh

runs=10 duration=3s conc=16
while getopts "n:d:c:" o; do
  case $o in
    n) runs=$OPTARG ;;
    d) duration=$OPTARG ;;
    c) conc=$OPTARG ;;
    *) echo "usage: $0 [-n RUNS] [-d DURATION] [-c CONCURRENCY]" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

lg=$(loadgate_bin "$work")
serve_builtin "$lg" "$work/serve.log"
server=$serve_pid port=$serve_port

cat >"$work/s.yaml" <<YAML
version: 1
name: cost
targets:
  - name: hello
    http: { url: "http://127.0.0.1:$port/" }
monitor: { pid: $server }
phases:
  - { name: warmup, warmup: true, requests: 2000, concurrency: $conc }
  - { name: measured, duration: $duration, concurrency: $conc }
YAML

: >"$work/figures"
for i in $(seq 1 "$runs"); do
  "$lg" run "$work/s.yaml" -o "$work/out" --no-progress --quiet >/dev/null 2>&1 || true
  jq -r '.scenarios[0].cases[0] | "\(.stats.rps) \(.server.cpu_per_request_us // "none") \(.server.cpu_mean)"' "$work/out/results.json" | tee -a "$work/figures" |
    awk -v i="$i" '{c = ($2 == "none") ? "no figure" : sprintf("%.2f µs", $2); printf "run %2d: rps %.0f, server CPU %.1f %%, %s of server CPU per request\n", i, $1, $3, c}'
done
awk '$2 != "none" { n++; r += $1; rr += $1*$1; c += $2; cc += $2*$2 }
  END {
    if (n < 2) { print "fewer than 2 runs with a cost figure"; exit 1 }
    mr = r/n; mc = c/n
    printf "over %d runs: rps mean %.0f, CoV %.2f %%; cpu_per_request mean %.2f µs, CoV %.2f %%\n",
      n, mr, 100*sqrt((rr - n*mr*mr)/(n-1))/mr, mc, 100*sqrt((cc - n*mc*mc)/(n-1))/mc
  }' "$work/figures"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
