#!/usr/bin/env bash
# Holds 10 000 concurrent keep-alive connections with loadgate against a
# loopback nginx and checks loadgate's peak RSS stays under 100 MiB. It runs
# once for SECS and once for three times as long: the two peaks should match,
# since memory must not grow with the number of requests sent.
#
#   bench/connections.sh
#
# Environment: CONNS (default 10000), SECS (10), MAX_RSS_MIB (100), LOADGATE
# (a loadgate binary to use instead of building this checkout).
# Exit 0 when both runs completed under the limit, 1 otherwise, 2 on setup errors.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

conns=${CONNS:-10000} secs=${SECS:-10} max_mib=${MAX_RSS_MIB:-100}
usage() { sed -n '2,11s/^# \{0,1\}//p' "$0" >&2; exit 2; }
[ $# -eq 0 ] || usage
for n in "$conns" "$secs" "$max_mib"; do [[ $n =~ ^[1-9][0-9]*$ ]] || usage; done
say "expected duration ≈ $((secs * 4 + 20)) s"
started=$SECONDS

work=$(mktemp -d)
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() { nginx_stop; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

raise_nofile
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((conns + 1000)) ]; then
  say "open-file limit $(ulimit -n) is too low for $conns connections"; exit 2
fi
if ! { need_apt nginx-light nginx && need_apt curl curl && need_apt time /usr/bin/time; }; then
  say "nginx, curl and GNU time are required"; exit 2
fi
build_loadgate "$work/loadgate" || { say "loadgate did not build"; exit 2; }
nginx_start "$work"

# run_for SECONDS runs loadgate and prints one Markdown row; it also sets rss.
run_for() {
  local d=$1 out="$work/out.$1" tf="$work/time.$1" rc=0 s0 s1 mid="" pid
  scenario "$work/c$d.yaml" true "$conns" "$d"
  wait_idle
  s0=$(stub) || s0=""
  /usr/bin/time -f "%U %S %M" -o "$tf" timeout -k 5 $((d * 2 + 30)) \
    "${pin_tool[@]}" "$work/loadgate" run --no-progress -o "" "$work/c$d.yaml" >"$out" 2>&1 </dev/null &
  pid=$!
  sleep "$((d / 2)).5"
  mid=$(stub) || mid=""
  wait "$pid" || rc=$?
  s1=$(stub) || s1=""
  rss=$(tail -n 1 "$tf" 2>/dev/null | awk 'NF == 3 {print $3}')
  tail -n 1 "$tf" 2>/dev/null | awk '{print $1 + $2}' >"$work/cpu.$d"
  if [ "$rc" != 0 ] || [ -z "$rss" ]; then
    say "loadgate failed (exit $rc):"; tail -n 5 "$out" >&2
    echo "| ${d} s | error (exit $rc) | | | | | |"
    rss=""; return 0
  fi
  awk -v d="$d" -v s0="$s0" -v s1="$s1" -v mid="$mid" -v rss="$rss" '
    /^Complete requests:/ {req = $3} /^Failed requests:/ {fail = $3}
    END {
      split(s0, a, " "); split(s1, b, " "); split(mid, m, " ")
      n = b[4] - a[4] - 1; ok = s0 != "" && s1 != ""
      printf "| %d s | %s | %s | %s | %s | %.1f MiB (%d KiB) | %s |\n", d, m[1] == "" ? "n/a" : m[1] - 1,
        req == "" ? "n/a" : req, fail == "" ? "n/a" : fail, ok ? n : "n/a", rss / 1024, rss,
        ok ? sprintf("%.0f", n / d) : "n/a"
    }' "$out"
}

echo "## loadgate with $conns keep-alive connections"
echo
echo "- machine: $(machine)"
echo "- nginx $(nginx -v 2>&1 | sed 's#.*/##'), 1 worker; loadgate $("$work/loadgate" version | awk '{print $NF}'), $(go version | awk '{print $3}')"
echo
echo "| duration | open connections (nginx, mid-run) | requests (loadgate) | failed | requests (nginx) | peak RSS | rps (nginx) |"
echo "|---|---:|---:|---:|---:|---:|---:|"
ticks0=$(cpu_ticks) runs_started=$SECONDS
run_for "$secs"; rss1=$rss
run_for $((secs * 3)); rss2=$rss
echo
others_cpu "$ticks0" "$(cpu_ticks)" "$(cat "$work"/cpu.* 2>/dev/null | awk '{n += $1} END {print n + 0}')" $((SECONDS - runs_started))
status=0
for r in "$rss1" "$rss2"; do
  if [ -z "$r" ] || [ "$r" -ge $((max_mib * 1024)) ]; then status=1; fi
done
if [ -n "$rss1" ] && [ -n "$rss2" ]; then
  awk -v a="$rss1" -v b="$rss2" -v d="$secs" \
    'BEGIN {printf "peak RSS: %.1f MiB at %d s, %.1f MiB at %d s (%+.1f%%)\n", a / 1024, d, b / 1024, 3 * d, (b - a) * 100 / a}'
fi
if [ "$status" = 0 ]; then echo "PASS: peak RSS < $max_mib MiB"; else echo "FAIL: a run failed or peak RSS ≥ $max_mib MiB"; fi
say "done in $((SECONDS - started)) s"
exit "$status"
