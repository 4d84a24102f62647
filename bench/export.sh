#!/usr/bin/env bash
# What exporting costs the load: REPEATS interleaved pairs of runs of one
# scenario against `loadgate serve` on 127.0.0.1, one without --export and
# one pushing to a remote-write receiver that is down (a closed loopback
# port), and the ratio of their median rps. A receiver that is down must
# cost the load nothing; the loss is said once, on stderr.
#
#   bench/export.sh [-r REPEATS] [-d DURATION] [-c CONCURRENCY]
#
# LOADGATE names the binary; default: built from this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source-path=SCRIPTDIR source=lib.sh
source bench/lib.sh

repeats=5 duration=3s conc=32
while getopts "r:d:c:" o; do
  case $o in
    r) repeats=$OPTARG ;;
    d) duration=$OPTARG ;;
    c) conc=$OPTARG ;;
    *) echo "usage: $0 [-r REPEATS] [-d DURATION] [-c CONCURRENCY]" >&2; exit 2 ;;
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
down=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
serve_builtin "$lg" "$work/serve.log"
server=$serve_pid port=$serve_port

cat >"$work/s.yaml" <<YAML
version: 1
name: export-cost
targets:
  - name: hello
    http: { url: "http://127.0.0.1:$port/" }
phases:
  - { name: warmup, warmup: true, requests: 2000, concurrency: $conc }
  - { name: measured, duration: $duration, concurrency: $conc }
YAML

rps() { jq -r '.scenarios[0].cases[0].stats.rps' "$1/results.json"; }
: >"$work/plain" ; : >"$work/export"
for i in $(seq 1 "$repeats"); do
  "$lg" run "$work/s.yaml" -o "$work/p" --no-progress --quiet >/dev/null 2>&1
  rps "$work/p" >>"$work/plain"
  "$lg" run "$work/s.yaml" -o "$work/e" --no-progress --quiet \
    --export "prometheus-rw=http://127.0.0.1:$down/api/v1/write" >/dev/null 2>"$work/e.err"
  rps "$work/e" >>"$work/export"
  printf 'pair %d: rps %.0f without export, %.0f exporting to a receiver that is down\n' "$i" "$(tail -n1 "$work/plain")" "$(tail -n1 "$work/export")"
done
median() { sort -g "$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mp=$(median "$work/plain") me=$(median "$work/export")
printf 'median rps: %.0f without export, %.0f with a receiver down: ratio %.3f (load average %s)\n' "$mp" "$me" "$(echo "$me / $mp" | bc -l)" "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "what the last exporting run said on stderr:"
grep -i "push" "$work/e.err" || echo "(nothing about pushes)"
