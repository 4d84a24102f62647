#!/usr/bin/env bash
# How big and how fast a long history is: writes a synthetic store of
# RUNS runs × CASES cases × 6 metrics (bench/history/synth), times
# `loadgate history show` and `history check` on it (/usr/bin/time), and
# measures the store on disk and in git when each run is one commit, as
# the Action's history branch keeps it.
#
#   bench/history/store.sh [-r RUNS] [-c CASES]
#
# LOADGATE names the binary; default: built from this checkout.
set -euo pipefail
cd "$(dirname "$0")/../.."

runs=1000 cases=20
while getopts "r:c:" o; do
  case $o in
    r) runs=$OPTARG ;;
    c) cases=$OPTARG ;;
    *) echo "usage: $0 [-r RUNS] [-c CASES]" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

lg=${LOADGATE:-}
if [ -z "$lg" ]; then
  lg="$work/loadgate"
  go build -o "$lg" ./cmd/loadgate
fi
go run ./bench/history/synth -out "$work/store" -runs "$runs" -cases "$cases"

echo "store: $runs runs × $cases cases × 6 metrics"
echo "files: $(find "$work/store" -name '*.json' | wc -l), on disk: $(du -sh --apparent-size "$work/store" | cut -f1) (apparent), $(du -sh "$work/store" | cut -f1) (blocks)"
for cmd in show check; do
  /usr/bin/time -f "history $cmd: %e s wall, %U s user, %M KiB max RSS" \
    "$lg" history "$cmd" --store "$work/store" >"$work/$cmd.txt" || true
done
echo "history show printed $(wc -l <"$work/show.txt") lines; history check: $(tail -n 1 "$work/check.txt")"

# One commit per run, as the Action appends them.
git init -q "$work/git"
git -C "$work/git" config user.email bench@loadgate.invalid
git -C "$work/git" config user.name bench
mkdir -p "$work/git/synthetic"
for f in "$work/store/synthetic"/*.json; do
  cp "$f" "$work/git/synthetic/"
  git -C "$work/git" add "synthetic/$(basename "$f")"
  git -C "$work/git" commit -qm "history: $(basename "$f")"
done
echo "git, loose: $(du -sh "$work/git/.git" | cut -f1)"
git -C "$work/git" gc -q --aggressive
echo "git, after gc: $(du -sh "$work/git/.git" | cut -f1) ($(git -C "$work/git" count-objects -vH | sed -n 's/^size-pack: //p') packed)"
