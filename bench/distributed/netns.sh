#!/usr/bin/env bash
# A distributed run on four test hosts made of network namespaces: nginx
# in a server namespace, three load namespaces each running one segment
# (loadgate run --segment i/3 --start-at T), joined by veth pairs to a
# bridge in a namespace of its own, on a private subnet that exists only
# inside these namespaces. Then loadgate merge, checked against nginx's own
# access log; then the same with one load host cut off at half time, and
# with its part lost, merged with and without --allow-partial.
#
#   sudo bench/distributed/netns.sh            # builds loadgate from this checkout
#   LOADGATE=/path/to/loadgate sudo bench/distributed/netns.sh
#
# Needs root, ip (iproute2), nginx (Debian nginx-light) and jq. Exits 0
# when every check passed, 1 when one failed, and 0 after saying why it
# skipped when namespaces cannot be made here (not root, no ip, or
# `ip netns add` refused, as in an unprivileged container). Everything it
# made is removed at the end, also on failure; it stops only the
# processes it started, by PID.
set -euo pipefail
export LC_ALL=C

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
say() { printf '%s\n' "$*" >&2; }
skip() { echo "netns: skipped: $*"; exit 0; }

[ "$(id -u)" = 0 ] || skip "not root (network namespaces need CAP_SYS_ADMIN)"
command -v ip >/dev/null || skip "no ip command (iproute2)"
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx" ] || skip "no nginx (apt-get install nginx-light)"
command -v jq >/dev/null || skip "no jq"

id=$$
ns_srv=lgsrv$id ns_br=lgbr$id
ns_load=("lgl1$id" "lgl2$id" "lgl3$id")
subnet=10.203.0
srv_addr=$subnet.1
load_addr=("$subnet.11" "$subnet.12" "$subnet.13")
port=8080
work=$(mktemp -d)
made=() running=() # namespaces made, PIDs started and not yet waited for

cleanup() {
  local p n
  for p in "${running[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${running[@]}"; do wait "$p" 2>/dev/null || true; done
  for n in "${made[@]}"; do ip netns del "$n" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# `ip netns add` is the test of whether this machine lets us make hosts.
if ! err=$(ip netns add "$ns_br" 2>&1); then
  skip "ip netns add is not permitted here: $err"
fi
made+=("$ns_br")
for n in "$ns_srv" "${ns_load[@]}"; do ip netns add "$n"; made+=("$n"); done

# The bridge lives in its own namespace: nothing of the test reaches the
# machine's own interfaces or routes.
ip -n "$ns_br" link add br0 type bridge
ip -n "$ns_br" link set br0 up
ip -n "$ns_br" link set lo up
# host NS NAME ADDR: a veth pair from namespace NS (eth0, with ADDR) to
# port NAME of the bridge.
host() {
  ip link add eth0 netns "$1" type veth peer name "$2" netns "$ns_br"
  ip -n "$ns_br" link set "$2" master br0 up
  ip -n "$1" addr add "$3/24" dev eth0
  ip -n "$1" link set eth0 up
  ip -n "$1" link set lo up
}
host "$ns_srv" srv "$srv_addr"
for i in 0 1 2; do host "${ns_load[$i]}" "l$((i + 1))" "${load_addr[$i]}"; done

# nginx: one worker, its own files, every request in the access log.
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 4096; }
http {
  log_format lg '\$remote_addr \$status \$request_uri';
  access_log $work/nginx/access.log lg;
  keepalive_requests 1000000;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  server {
    listen $srv_addr:$port backlog=4096;
    location / { default_type text/plain; return 200 "hello\n"; }
  }
}
EOF
# ip netns exec execs nginx itself: $! is nginx's master process.
ip netns exec "$ns_srv" "$nginx" -p "$work/nginx" -c "$work/nginx/nginx.conf" 2>"$work/nginx/stderr" &
nginx_pid=$!
running+=("$nginx_pid")
for _ in $(seq 50); do
  ip netns exec "$ns_srv" ss -ltnH "src $srv_addr:$port" | grep -q . && break
  sleep 0.1
done
ip netns exec "$ns_srv" ss -ltnH "src $srv_addr:$port" | grep -q . || { cat "$work/nginx/stderr" "$work/nginx/error.log" >&2; say "nginx did not start"; exit 1; }

lg=${LOADGATE:-}
if [ -z "$lg" ]; then
  lg=$work/loadgate
  (cd "$root" && go build -o "$lg" ./cmd/loadgate)
fi

failed=0
"$lg" validate "$root/bench/distributed/sizing.yaml" >/dev/null # the sizing scenario of docs/distributed.md
check() { # check WHAT CONDITION-EXIT-STATUS
  if [ "$2" = 0 ]; then echo "  ok: $1"; else echo "  FAIL: $1"; failed=1; fi
}
log_lines() { wc -l <"$work/nginx/access.log" 2>/dev/null || echo 0; }
# requests_of FILE: every phase's requests in a results.json, added up.
requests_of() { jq '[.scenarios[].cases[].phases[].requests] | add // 0' "$1"; }
p99_of() { jq '.scenarios[0].cases[0].stats.latency.p99_ns' "$1"; }

# A closed model with a fixed request count: every request a segment
# starts is counted once, as success or failure, and none is in flight when
# the phase ends, so nginx must have logged exactly the merged requests.
cat >"$work/exact.yaml" <<EOF
version: 1
name: netns-exact
targets:
  - name: nginx
    http: { url: "http://$srv_addr:$port/", timeout: 2s, expect: { status: [200] } }
phases:
  - name: measured
    requests: 3000
    concurrency: 6
    duration: 20s
thresholds:
  - requests == 3000
  - error_rate == 0
EOF

# segments SCENARIO OUT [CUT [LATE]]: runs segment i/3 in load namespace
# i, all given one absolute start time; with CUT, segment 2's link is cut
# CUT seconds after the start and restored once every segment has
# finished; with LATE, segment 3 is launched LATE seconds after the start.
segments() {
  local scenario=$1 out=$2 cut=${3:-} late=${4:-} at i d seg=() codes=()
  at=$(date -u -d '+4 seconds' +%Y-%m-%dT%H:%M:%SZ)
  echo "  loadgate run --segment i/3 --start-at $at -o part-i $(basename "$scenario")   (i = 1, 2, 3, one per load namespace)"
  for i in 0 1 2; do
    if [ "$i" = 2 ] && [ -n "$late" ]; then
      d=$(($(date -d "$at" +%s) - $(date +%s) + late))
      [ "$d" -le 0 ] || sleep "$d"
      echo "  segment 3 launched ${late}s after the start time"
    fi
    ip netns exec "${ns_load[$i]}" "$lg" run --no-progress --quiet --segment "$((i + 1))/3" --start-at "$at" \
      -o "$out/part-$((i + 1))" "$scenario" >"$out/segment-$((i + 1)).log" 2>&1 &
    seg+=($!)
  done
  running=("$nginx_pid" "${seg[@]}")
  if [ -n "$cut" ]; then
    [ -z "$late" ] || { say "segments: CUT and LATE together are not supported"; return 1; }
    d=$(($(date -d "$at" +%s) - $(date +%s) + cut))
    [ "$d" -le 0 ] || sleep "$d"
    ip -n "$ns_br" link set l2 down
    echo "  cut segment 2's link (l2 down on the bridge) at $(date -u +%H:%M:%S), ${cut}s after the start"
  fi
  for i in 0 1 2; do
    if wait "${seg[$i]}"; then codes+=(0); else codes+=($?); fi
  done
  running=("$nginx_pid")
  [ -z "$cut" ] || ip -n "$ns_br" link set l2 up
  echo "  segments exited ${codes[*]}"
}

echo "== 1. three load hosts, every part arrives"
mkdir -p "$work/exact"
before=$(log_lines)
segments "$work/exact.yaml" "$work/exact"
sleep 0.3 # nginx logs a request as it finishes it: let the last lines land
code=0
"$lg" merge --no-progress --quiet -o "$work/exact/merged" "$work/exact"/part-{1,2,3} >"$work/exact/merge.log" 2>&1 || code=$?
served=$(($(log_lines) - before))
merged=$(requests_of "$work/exact/merged/results.json")
clients=$(tail -n "$served" "$work/nginx/access.log" | awk '{print $1}' | sort -u | tr '\n' ' ')
echo "  merge exit $code; nginx logged $served requests, merged requests $merged; clients seen: $clients"
check "merge exits 0" "$([ "$code" = 0 ] && echo 0 || echo 1)"
check "nginx's count equals merged requests ($served = $merged)" "$([ "$served" = "$merged" ] && echo 0 || echo 1)"
check "the three load hosts' addresses are in the access log" \
  "$([ "$clients" = "${load_addr[0]} ${load_addr[1]} ${load_addr[2]} " ] && echo 0 || echo 1)"

echo "== 2. the same load from one host, for the p99"
mkdir -p "$work/single"
for k in 1 2; do
  ip netns exec "${ns_load[0]}" "$lg" run --no-progress --quiet -o "$work/single/out$k" "$work/exact.yaml" >"$work/single/run$k.log" 2>&1 || true
done
# One bucket of loadgate's HDR histograms (µs, 3 significant digits): 1 µs
# below 2048 µs, then twice as wide for every doubling of the value.
apart() { # apart WHAT A_NS B_NS
  awk -v what="$1" -v a="$2" -v b="$3" 'BEGIN {
    v = (a > b ? a : b) / 1000; w = 1
    while (v >= 2048) { v /= 2; w *= 2 }
    d = (a > b ? a - b : b - a) / 1000
    printf "  %s: %.0f µs and %.0f µs, %.0f µs apart = %.1f buckets of %d µs (%s)\n",
      what, a / 1000, b / 1000, d, d / w, w, (d <= w ? "within one bucket" : "not within one bucket")
  }'
}
merged_p99=$(p99_of "$work/exact/merged/results.json")
apart "p99 merged (3 hosts) vs one host" "$merged_p99" "$(p99_of "$work/single/out1/results.json")"
apart "p99 one host vs the same again (run-to-run noise)" "$(p99_of "$work/single/out1/results.json")" "$(p99_of "$work/single/out2/results.json")"
gen=$(jq -r '[.host.cores, .scenarios[0].cases[0].phases[0].generator.cpu, .scenarios[0].cases[0].phases[0].elapsed_ns, .scenarios[0].cases[0].phases[0].requests] | @tsv' "$work/single/out1/results.json")
read -r cores cpu elapsed reqs <<<"$gen"
awk -v c="$cores" -v u="$cpu" -v e="$elapsed" -v n="$reqs" 'BEGIN {
  us = u * c * (e / 1e9) / n * 1e6
  printf "  loadgate CPU per request (one host, closed model, keep-alive): %.1f µs (cpu %.2f of %d cores over %.2f s, %d requests)\n", us, u, c, e / 1e9, n
}'

echo "== 3. segment 2 cut off at half time"
cat >"$work/cut.yaml" <<EOF
version: 1
name: netns-cut
targets:
  - name: nginx
    http: { url: "http://$srv_addr:$port/", timeout: 1s, expect: { status: [200] } }
phases:
  - name: measured
    duration: 8s
    concurrency: 6
    think_time: 5ms
    graceful_stop: 1s
thresholds:
  - error_rate < 1%
EOF
mkdir -p "$work/cut"
segments "$work/cut.yaml" "$work/cut" 3
for allow in "" --allow-partial; do
  code=0 flags=()
  [ -z "$allow" ] || flags=("$allow")
  "$lg" merge --no-progress --quiet "${flags[@]}" -o "$work/cut/merged$allow" "$work/cut"/part-{1,2,3} >"$work/cut/merge.log" 2>&1 || code=$?
  echo "  loadgate merge ${allow:+$allow }part-1 part-2 part-3: exit $code"
  sed 's/^/    | /' "$work/cut/merge.log"
  if [ -z "$allow" ]; then
    check "merge without --allow-partial exits 3" "$([ "$code" = 3 ] && echo 0 || echo 1)"
    check "it names segment 2/3 as incomplete" "$(grep -q 'segment 2/3 incomplete' "$work/cut/merge.log" && echo 0 || echo 1)"
  else
    check "merge --allow-partial judges (exit 0 or 1, not 3)" "$([ "$code" -le 1 ] && echo 0 || echo 1)"
    check "its headline says it judged what arrived" "$(grep -q 'judged on what arrived (--allow-partial)' "$work/cut/merge.log" && echo 0 || echo 1)"
  fi
done

echo "== 4. segment 2's part lost (its host never wrote one)"
for allow in "" --allow-partial; do
  code=0 flags=()
  [ -z "$allow" ] || flags=("$allow")
  "$lg" merge --no-progress --quiet "${flags[@]}" -o "$work/cut/lost$allow" "$work/cut"/part-{1,3} >"$work/cut/lost.log" 2>&1 || code=$?
  echo "  loadgate merge ${allow:+$allow }part-1 part-3: exit $code"
  sed 's/^/    | /' "$work/cut/lost.log"
  if [ -z "$allow" ]; then
    check "merge without --allow-partial exits 3 and says 'segment 2/3 missing: 33 % of the load'" \
      "$([ "$code" = 3 ] && grep -q 'segment 2/3 missing: 33 % of the load; thresholds not judged' "$work/cut/lost.log" && echo 0 || echo 1)"
  else
    check "merge --allow-partial judges what arrived and says so" \
      "$([ "$code" -le 1 ] && grep -q 'judged on what arrived (--allow-partial): segment 2/3 missing: 33 % of the load' "$work/cut/lost.log" && echo 0 || echo 1)"
  fi
done

echo "== 5. segment 3 starts 2 s late"
mkdir -p "$work/late"
segments "$work/exact.yaml" "$work/late" "" 2
code=0
"$lg" merge --no-progress --quiet -o "$work/late/merged" "$work/late"/part-{1,2,3} >"$work/late/merge.log" 2>&1 || code=$?
echo "  loadgate merge part-1 part-2 part-3: exit $code"
sed 's/^/    | /' "$work/late/merge.log"
check "the late segment is flagged in the headline" "$(grep -q 'segment 3/3 started [0-9.]*s after --start-at' "$work/late/merge.log" && echo 0 || echo 1)"

if [ "$failed" != 0 ]; then
  for f in "$work"/exact/segment-*.log "$work"/cut/segment-*.log "$work/exact/merge.log"; do
    say "--- $f"; tail -n 20 "$f" >&2
  done
  echo "netns: FAILED"
  exit 1
fi
echo "netns: every check passed"
