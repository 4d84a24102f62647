#!/usr/bin/env bash
# Holds CONNS concurrent keep-alive connections with loadgate against a
# loopback nginx and checks loadgate's peak RSS stays under MAX_RSS_MIB.
#
#   bench/connections.sh                  # 10 000 connections, two runs
#   CONNS=1000000 bench/connections.sh    # a million, ramped in and held
#
# Up to 50 000 connections (unless HOLD is set) it runs once for SECS and
# once for three times as long: the two peaks should match, since memory
# must not grow with the number of requests sent. Above, or with HOLD, it
# ramps the connections in over RAMP seconds, from one source address per
# 20 000 connections (local_ips: 127.0.0.2 and up), holds them for HOLD
# seconds at about RATE requests/s in all (closed model, think time
# CONNS / RATE), prints loadgate's RSS every 10 s of the hold (10 s and 60 s
# are checked), its peak, nginx's open connections, the kernel's slab
# memory, and the connect time of the last 10 % of connections.
#
# Environment: CONNS (default 10000), SECS (10), MAX_RSS_MIB (100, or 1024
# when holding), HOLD (60 above 50 000 connections), RAMP (CONNS / 20000 s,
# at least 5), RATE (10000), LOADGATE (a loadgate binary to use instead of
# building this checkout). It raises its own open-file limit (ulimit -n) to
# what CONNS needs and changes no sysctl; it checks fs.nr_open and
# fs.file-max and stops when they, or a hard limit it cannot raise, are
# too low. Everything it starts it stops by PID, also on failure.
# Exit 0 when every run completed under the limit, 1 otherwise, 2 on setup errors.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

conns=${CONNS:-10000} secs=${SECS:-10}
hold=${HOLD:-} rate=${RATE:-10000}
if [ -z "$hold" ] && [ "$conns" -gt 50000 ] 2>/dev/null; then hold=60; fi
max_mib=${MAX_RSS_MIB:-$([ -n "$hold" ] && echo 1024 || echo 100)}
ramp=${RAMP:-$(( conns / 20000 > 5 ? conns / 20000 : 5 ))}
usage() { sed -n '2,26s/^# \{0,1\}//p' "$0" >&2; exit 2; }
[ $# -eq 0 ] || usage
for n in "$conns" "$secs" "$max_mib" "$ramp" "$rate" ${hold:+"$hold"}; do [[ $n =~ ^[1-9][0-9]*$ ]] || usage; done
[ "$conns" -le 1000000 ] || { say "CONNS: at most 1000000 (a phase's concurrency)"; exit 2; }
started=$SECONDS

work=$(mktemp -d)
lg_pid=""
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
  if [ -n "$lg_pid" ]; then kill "$lg_pid" 2>/dev/null || true; wait "$lg_pid" 2>/dev/null || true; fi
  nginx_stop; rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Each connection is a descriptor in loadgate and one in nginx; nginx's
# workers each take a share (at most the limit less a margin), and nginx
# starts to close idle connections when fewer than 1/16 of a worker's are
# free, so each worker is given 17/16 of its share.
need=$((conns + 1000))
ulimit -n "$need" 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
nofile=$(ulimit -n)
if [ "$nofile" != unlimited ] && [ "$nofile" -lt "$need" ]; then
  say "open-file limit $nofile (hard $(ulimit -Hn)) is too low for $conns connections: loadgate needs $need."
  caps=$(awk '/^CapEff/ {print $2}' /proc/self/status)
  if [ -n "$caps" ] && (( (16#$caps >> 24 & 1) == 0 )); then
    say "Raising the hard limit needs CAP_SYS_RESOURCE, which this shell lacks (CapEff $caps):"
  fi
  say "run it where the hard limit is higher (ulimit -Hn; LimitNOFILE= of a systemd unit, docker run --ulimit nofile=…), or with CONNS of at most $((nofile - 1000))."
  exit 2
fi
nr_open=$(cat /proc/sys/fs/nr_open) file_max=$(awk '{print $1}' /proc/sys/fs/file-max)
if [ "$nr_open" -lt "$need" ] || [ "$file_max" -lt $((2 * need + 10000)) ]; then
  say "fs.nr_open $nr_open or fs.file-max $file_max is too low for $conns connections (need $need and $((2 * need + 10000)))"; exit 2
fi
if [ "$nofile" = unlimited ]; then per=$((nr_open - 100)); else per=$((nofile - 100)); fi
nginx_workers=$(( (conns * 17 / 16 + per - 1) / per ))
nginx_conns=$(( conns * 17 / 16 / nginx_workers + 1000 ))
[ -z "$hold" ] || nginx_keepalive=$((ramp + hold + conns / rate + 120))s
if ! { need_apt nginx-light nginx && need_apt curl curl && need_apt time /usr/bin/time && need_apt jq jq; }; then
  say "nginx, curl, jq and GNU time are required"; exit 2
fi
if [ -n "$hold" ]; then say "expected duration ≈ $((ramp + hold + 30)) s"; else say "expected duration ≈ $((secs * 4 + 20)) s"; fi
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

# slab_kib prints the kernel's slab memory (sockets, their files and
# epoll entries live there), KiB.
slab_kib() { awk '/^Slab:/ {print $2}' /proc/meminfo; }

# hold_scenario FILE writes the ramp-and-hold phase: CONNS workers started
# over RAMP seconds, each sending a request every CONNS / RATE seconds.
hold_scenario() {
  local ips="" n=$(( (conns + 19999) / 20000 ))
  [ "$conns" -le 20000 ] || ips=", local_ips: \"127.0.0.2-127.0.0.$((n + 1))\""
  cat >"$1" <<YAML
version: 1
name: connections
targets:
  - name: nginx
    http: { url: "http://127.0.0.1:$nginx_port/", timeout: 60s$ips }
phases:
  - name: hold
    duration: $((ramp + hold + 5))s
    concurrency: $conns
    ramp_up: ${ramp}s
    think_time: $(awk -v c="$conns" -v r="$rate" 'BEGIN {printf "%dms", c * 1000 / r}')
YAML
}

# run_hold ramps the connections in, holds them, samples loadgate's RSS
# every second and prints the hold's table; it sets rss (the peak) and
# hold_ok (RSS at 10 s and 60 s of the hold both known and under the limit).
run_hold() {
  local out="$work/out.hold" samples="$work/rss" t=0 t0 end=$((ramp + hold + 5)) slab0 rc=0
  hold_scenario "$work/hold.yaml"
  wait_idle
  slab0=$(slab_kib)
  "${pin_tool[@]}" "$work/loadgate" run --no-progress -o "$work/res" "$work/hold.yaml" >"$out" 2>&1 </dev/null &
  lg_pid=$! t0=$SECONDS
  : >"$samples"
  while kill -0 "$lg_pid" 2>/dev/null; do
    t=$((SECONDS - t0))
    # t, loadgate's RSS and peak RSS (KiB), nginx's open connections, slab KiB
    printf '%d %s %s %s %s\n' "$t" "$(awk '/^VmRSS/ {print $2}' "/proc/$lg_pid/status" 2>/dev/null)" \
      "$(awk '/^VmHWM/ {print $2}' "/proc/$lg_pid/status" 2>/dev/null)" "$( (stub || echo "n/a") | awk '{print $1}')" \
      "$(slab_kib)" >>"$samples"
    if [ "$t" -gt $((end + 180)) ]; then say "loadgate still running $t s after its start: stopped"; kill "$lg_pid"; fi
    sleep 1
  done
  wait "$lg_pid" || rc=$?
  lg_pid=""
  [ "$rc" = 0 ] || { say "loadgate exited $rc:"; tail -n 5 "$out" >&2; }
  echo "| second of the hold | loadgate RSS | peak RSS so far | nginx open connections | kernel slab (+ since start) |"
  echo "|---:|---:|---:|---:|---:|"
  # The first sample at or after each tenth second of the hold.
  awk -v ramp="$ramp" -v hold="$hold" -v slab0="$slab0" '
    NF >= 5 { h = $1 - ramp; if (h >= next10 && next10 <= hold) { next10 = (int(h / 10) + 1) * 10
      printf "| %d s | %.1f MiB | %.1f MiB | %s | %.0f MiB (+%.0f) |\n", h, $2 / 1024, $3 / 1024, $4 == "n/a" ? $4 : $4 - 1, $5 / 1024, ($5 - slab0) / 1024 } }' "$samples"
  rss=$(awk 'NF >= 3 && $3 > m {m = $3} END {print m + 0}' "$samples")
  local r10 r60
  r10=$(awk -v at=$((ramp + 10)) 'NF >= 2 && $1 >= at {print $2; exit}' "$samples")
  r60=$(awk -v at=$((ramp + 60)) 'NF >= 2 && $1 >= at {print $2; exit}' "$samples")
  echo
  awk -v a="$r10" -v b="$r60" -v p="$rss" -v h="$hold" 'BEGIN {
    printf "- loadgate RSS: %s at 10 s of the hold, %s at 60 s, peak %.1f MiB\n",
      a == "" ? "n/a" : sprintf("%.1f MiB", a / 1024), b == "" ? (h < 60 ? "n/a (HOLD < 60)" : "n/a") : sprintf("%.1f MiB", b / 1024), p / 1024 }'
  hold_ok=1
  if [ "$rc" != 0 ] || [ -z "$r10" ] || [ "$r10" -ge $((max_mib * 1024)) ] || [ "$rss" -ge $((max_mib * 1024)) ]; then hold_ok=""; fi
  if [ "$hold" -ge 60 ] && { [ -z "$r60" ] || [ "$r60" -ge $((max_mib * 1024)) ]; }; then hold_ok=""; fi
  connect_tail "$work/res/results.json" "$out"
}

# connect_tail RESULTS CONSOLE prints the connections opened, failures, and
# the connect time of the last 10 % of connections: the per-second series'
# connect p99 over the last seconds that opened a tenth of them (the worst
# second's), beside every connection's p50 and p99.
connect_tail() {
  [ -s "$1" ] || { echo "- no results.json: connect times unknown"; return 0; }
  jq -r '[.. | objects | select(has("series"))][0] as $p
    | [.. | objects | select(has("connect") and (.connect | type) == "object")][0].connect as $c
    | ($p.series | map(.connects // 0) | add) as $n
    | (reduce ($p.series | reverse | .[]) as $s ({c: 0, w: 0, secs: 0};
        if .c < $n / 10 and ($s.connects // 0) > 0
        then {c: (.c + $s.connects), w: ([.w, $s.connect_p99_ns] | max), secs: (.secs + 1)} else . end)) as $tail
    | def ms: . / 1e6 | tostring + " ms";
      "- requests \($p.requests), failed \($p.failed); connections opened \($n)",
      "- connect time of every connection: p50 \($c.p50_ns | ms), p99 \($c.p99_ns | ms), max \($c.max_ns | ms)",
      "- connect time of the last 10 % of connections (\($tail.c) opened in the last \($tail.secs) s that opened any): p99 \($tail.w | ms), the worst of those seconds"' "$1"
  awk '/^Failed requests:/ && $3 > 0 {print "- failed requests: " $3}' "$2"
}

echo "## loadgate with $conns keep-alive connections"
echo
echo "- machine: $(machine)"
echo "- nginx $(nginx -v 2>&1 | sed 's#.*/##'), $nginx_workers worker(s) of $nginx_conns connections; loadgate $("$work/loadgate" version | awk '{print $NF}'), $(go version | awk '{print $3}')"
echo "- load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
ticks0=$(cpu_ticks) runs_started=$SECONDS
status=0
if [ -n "$hold" ]; then
  echo "- ramp $ramp s, hold $hold s, think time $((conns * 1000 / rate)) ms (about $rate requests/s)"
  echo
  rss="" hold_ok=""
  run_hold
  [ -n "$hold_ok" ] || status=1
else
  echo "| duration | open connections (nginx, mid-run) | requests (loadgate) | failed | requests (nginx) | peak RSS | rps (nginx) |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  run_for "$secs"; rss1=$rss
  run_for $((secs * 3)); rss2=$rss
  for r in "$rss1" "$rss2"; do
    if [ -z "$r" ] || [ "$r" -ge $((max_mib * 1024)) ]; then status=1; fi
  done
  if [ -n "$rss1" ] && [ -n "$rss2" ]; then
    awk -v a="$rss1" -v b="$rss2" -v d="$secs" \
      'BEGIN {printf "\npeak RSS: %.1f MiB at %d s, %.1f MiB at %d s (%+.1f%%)\n", a / 1024, d, b / 1024, 3 * d, (b - a) * 100 / a}'
  fi
fi
echo
echo "- load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
others_cpu "$ticks0" "$(cpu_ticks)" "$(cat "$work"/cpu.* 2>/dev/null | awk '{n += $1} END {print n + 0}')" $((SECONDS - runs_started))
if [ "$status" = 0 ]; then echo "PASS: peak RSS < $max_mib MiB"; else echo "FAIL: a run failed or peak RSS ≥ $max_mib MiB"; fi
say "done in $((SECONDS - started)) s"
exit "$status"
