#!/usr/bin/env bash
# A real history: RUNS_BEFORE runs of a scenario against `loadgate serve
# --delay 2ms`, then RUNS_AFTER with --delay 2.2ms, each appended with
# `loadgate history add` as the commit of a scratch git repository (one
# fake commit per run), then `history show` and `history show --html`.
#
#   bench/history/series.sh [-b RUNS_BEFORE] [-a RUNS_AFTER] [-o DIR]
#
# DIR (default: a temporary directory, removed at the end) keeps the
# store, the scratch repository, history.txt and history.html. The server
# is started and stopped here, by PID, on 127.0.0.1. LOADGATE names the
# binary; default: built from this checkout.
set -euo pipefail
cd "$(dirname "$0")/../.."

before=30 after=10 out=""
while getopts "b:a:o:" o; do
  case $o in
    b) before=$OPTARG ;;
    a) after=$OPTARG ;;
    o) out=$OPTARG ;;
    *) echo "usage: $0 [-b RUNS_BEFORE] [-a RUNS_AFTER] [-o DIR]" >&2; exit 2 ;;
  esac
done

work=$(mktemp -d)
server=""
stop_server() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=""
  fi
}
cleanup() {
  stop_server
  if [ -z "$out" ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
if [ -n "$out" ]; then mkdir -p "$out" && work=$(cd "$out" && pwd -P); fi

lg=${LOADGATE:-}
if [ -z "$lg" ]; then
  lg="$work/loadgate"
  go build -o "$lg" ./cmd/loadgate
fi
scenario=$(pwd -P)/bench/history/series.yaml

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
start_server() { # DELAY
  "$lg" serve --http "127.0.0.1:$port" --delay "$1" >"$work/serve.log" 2>&1 &
  server=$!
  for _ in $(seq 100); do
    if curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1; then return; fi
    sleep 0.05
  done
  echo "series: the server did not start" >&2
  exit 1
}

repo="$work/repo" store="$work/store"
rm -rf "$repo" "$store"
git init -q "$repo"
git -C "$repo" config user.email bench@loadgate.invalid
git -C "$repo" config user.name bench

run_one() { # N DELAY
  echo "run $1 delay $2" >"$repo/server.conf"
  git -C "$repo" add server.conf
  git -C "$repo" commit -qm "run $1: delay $2"
  sha=$(git -C "$repo" rev-parse HEAD)
  parent=$(git -C "$repo" rev-parse --verify --quiet HEAD^ || true)
  rc=0
  "$lg" run "$scenario" --var "host=127.0.0.1:$port" -o "$work/out" --no-progress --quiet >/dev/null 2>&1 || rc=$?
  if [ "$rc" -gt 1 ]; then echo "series: run $1 exited $rc" >&2; exit 1; fi
  (cd "$repo" && "$lg" history add "$work/out/results.json" --store "$store" \
    --commit "$sha" --parent "$parent" --branch main --run-url "https://ci.invalid/runs/$1" >/dev/null)
  printf 'run %2d  delay %-6s %s  rps %s\n' "$1" "$2" "${sha:0:7}" "$(jq -r '.scenarios[0].cases[0].stats.rps | floor' "$work/out/results.json")"
}

start_server 2ms
for i in $(seq 1 "$before"); do run_one "$i" 2ms; done
stop_server
start_server 2.2ms
for i in $(seq $((before + 1)) $((before + after))); do run_one "$i" 2.2ms; done
stop_server

(cd "$repo" && "$lg" history show --store "$store" --html "$work/history.html" --commit-url "file://$repo/{sha}") | tee "$work/history.txt"
