#!/usr/bin/env bash
# Compares loadgate with wrk, ab, hey and vegeta against the same loopback
# nginx: same connection count, same duration, nginx pinned to core 0 and the
# tool to core 1 (with two cores or more), once with keep-alive connections and
# once with a new connection per request ("short": wrk sends "Connection:
# close", ab and hey do not keep connections alive, loadgate has keepalive:
# false); mode tlsshort is short over HTTPS (nginx with a self-signed
# certificate made at bench time; wrk resumes TLS sessions, loadgate too
# unless RESUME=false puts tls: { resume: false } in its scenario, ab cannot
# resume); mode tls is keepalive over HTTPS (TLS 1.3, the same nginx and
# certificate as tlsshort; wrk and loadgate); mode h2 compares loadgate
# with h2load over HTTP/2 (h2c), STREAMS streams per connection, and mode
# h2tls the same over TLS (ALPN h2, nginx's self-signed certificate); mode grpc
# compares loadgate with ghz calling Echo/Say of `loadgate serve --grpc`
# (pinned to core 0 instead of nginx), CONNS concurrent calls over
# GRPC_CONNS connections (default 5); mode ws compares loadgate with
# Artillery's WebSocket engine on the echo at /ws of that same server, CONNS
# connections each sending a message and waiting for its echo. Each (tool,
# mode) pair runs REPEATS times, tools interleaved; one table of medians.
# PIN=false pins nothing: server and tool share the cores, as on a CI runner.
#
#   bench/compare.sh [-v] [-c CONNS] [-d SECS] [-r REPEATS] [-t TOOLS] [-m MODES] [-s STREAMS]
#
# The same settings can come from the environment: CONNS (default 50), SECS (5),
# REPEATS (3), TOOLS (wrk,ab,hey,vegeta,h2load,loadgate; also ghz, artillery),
# MODES (keepalive,short; also tlsshort, tls, h2, h2tls, grpc, ws), STREAMS (10),
# RESUME (true). -v also prints every run. Missing tools are installed
# (apt-get, go install, npm).
# loadgate is built from this checkout, or taken from $LOADGATE when set;
# LOADGATE_BASE=BINARY adds another loadgate build, "loadgate-base", run in
# every mode loadgate is, interleaved, and a table of the two builds' ratios.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=grpc.sh
source "$(dirname "$0")/grpc.sh"
# shellcheck source-path=SCRIPTDIR source=ws.sh
source "$(dirname "$0")/ws.sh"

all_tools=(wrk ab hey vegeta h2load loadgate ghz artillery loadgate-base)
conns=${CONNS:-50} secs=${SECS:-5} repeats=${REPEATS:-3} streams=${STREAMS:-10}
grpc_conns=${GRPC_CONNS:-5}
tools=${TOOLS:-wrk,ab,hey,vegeta,h2load,loadgate} modes=${MODES:-keepalive,short} verbose=""
usage() { sed -n '2,30s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while getopts "vc:d:r:t:m:s:h" opt; do
  case $opt in
    v) verbose=1 ;; c) conns=$OPTARG ;; d) secs=$OPTARG ;; r) repeats=$OPTARG ;;
    t) tools=$OPTARG ;; m) modes=$OPTARG ;; s) streams=$OPTARG ;; *) usage ;;
  esac
done
for n in "$conns" "$secs" "$repeats" "$streams"; do [[ $n =~ ^[1-9][0-9]*$ ]] || usage; done
IFS=, read -r -a tools <<<"$tools"
IFS=, read -r -a modes <<<"$modes"
[ -z "${LOADGATE_BASE:-}" ] || [[ " ${tools[*]} " == *" loadgate-base "* ]] || tools+=(loadgate-base)
for t in "${tools[@]}"; do [[ " ${all_tools[*]} " == *" $t "* ]] || { say "unknown tool $t"; usage; }; done
for m in "${modes[@]}"; do [[ $m =~ ^(keepalive|short|tlsshort|tls|h2|h2tls|grpc|ws)$ ]] || { say "unknown mode $m"; usage; }; done

# can TOOL MODE: h2 is loadgate against h2load, which speaks only HTTP/2;
# tlsshort is for the tools that take https:// URLs and a self-signed
# certificate without further ado.
can() {
  case $1/$2 in
    ghz/grpc) return 0 ;; ghz/* | wrk/grpc | ab/grpc | hey/grpc | vegeta/grpc | h2load/grpc) return 1 ;;
    loadgate/* | loadgate-base/*) true ;; h2load/h2 | h2load/h2tls) true ;; */h2 | */h2tls | h2load/*) false ;;
    wrk/tlsshort | ab/tlsshort) true ;; */tlsshort) false ;;
    wrk/tls) true ;; */tls) false ;;
    artillery/ws) true ;; artillery/* | */ws) false ;;
    *) true ;;
  esac
}
# have TOOL: is the tool there (loadgate: did it build)?
have() { case $1 in loadgate*) [ -x "$work/bin/$1" ] ;; *) command -v "$1" >/dev/null ;; esac; }

runs=0
for m in "${modes[@]}"; do for t in "${tools[@]}"; do can "$t" "$m" && runs=$((runs + repeats)); done; done
say "$runs runs of ${secs} s; expected duration ≈ $((runs * (secs + 1) + 15)) s (plus installs on a new machine)"
started=$SECONDS

work=$(mktemp -d)
cleanup() { nginx_stop; grpc_stop; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

raise_nofile
PATH="$PATH:$(go env GOPATH)/bin"
if ! { need_apt nginx-light nginx && need_apt curl curl && need_apt time /usr/bin/time; }; then
  say "nginx, curl and GNU time are required"; exit 2
fi
for t in "${tools[@]}"; do
  case $t in
    wrk) need_apt wrk wrk || true ;;
    ab) need_apt apache2-utils ab || true ;;
    hey) need_go hey github.com/rakyll/hey latest || true ;;
    vegeta) need_go vegeta github.com/tsenart/vegeta/v12 v12.13.0 latest || true ;;
    h2load) [[ " ${modes[*]} " != *" h2"* ]] || need_apt nghttp2-client h2load || true ;;
    ghz) [[ " ${modes[*]} " != *" grpc "* ]] || need_go ghz github.com/bojand/ghz/cmd/ghz latest || true ;;
    artillery) [[ " ${modes[*]} " != *" ws "* ]] || need_npm artillery artillery 2.0.34 || true ;;
  esac
done
mkdir "$work/bin"
build_loadgate "$work/bin/loadgate" || say "loadgate did not build: its rows will say missing"
if [[ " ${tools[*]} " == *" loadgate-base "* ]]; then
  cp "${LOADGATE_BASE:?loadgate-base needs LOADGATE_BASE=BINARY}" "$work/bin/loadgate-base"
fi
nginx_start "$work" $((${#all_tools[@]} + 1))
# port_of TOOL: each tool loads its own nginx port, the stub has the first.
port_of() { local i; for i in "${!all_tools[@]}"; do [ "${all_tools[i]}" != "$1" ] || echo $((nginx_port + 1 + i)); done; }
# tls_port_of TOOL: the same for the HTTPS ports.
tls_port_of() { echo $(($(port_of "$1") - nginx_port + nginx_tls_port)); }
scenario "$work/keepalive.yaml" true "$conns" "$secs" "$(port_of loadgate)"
scenario "$work/short.yaml" false "$conns" "$secs" "$(port_of loadgate)"
scenario "$work/tlsshort.yaml" false "$conns" "$secs" "$(tls_port_of loadgate)" https
scenario "$work/tls.yaml" true "$conns" "$secs" "$(tls_port_of loadgate)" https
# loadgate-base loads its own nginx ports, as every tool does.
scenario "$work/base-keepalive.yaml" true "$conns" "$secs" "$(port_of loadgate-base)"
scenario "$work/base-short.yaml" false "$conns" "$secs" "$(port_of loadgate-base)"
scenario "$work/base-tlsshort.yaml" false "$conns" "$secs" "$(tls_port_of loadgate-base)" https
scenario "$work/base-tls.yaml" true "$conns" "$secs" "$(tls_port_of loadgate-base)" https
[ "${RESUME:-true}" = true ] || sed -i 's/insecure_skip_verify: true }/insecure_skip_verify: true, resume: false }/' "$work/tlsshort.yaml" "$work/base-tlsshort.yaml"
# HTTP/2 runs share nginx's one h2c port: CONNS connections, STREAMS each.
h2_scenario "$work/h2.yaml" "$conns" "$streams" "$secs"
h2_scenario "$work/h2tls.yaml" "$conns" "$streams" "$secs" "https://127.0.0.1:$nginx_h2tls_port/"
printf 'GET http://127.0.0.1:%s/\n' "$(port_of vegeta)" >"$work/targets"
# gRPC runs load the built-in server, which needs the loadgate binary.
if [[ " ${modes[*]} " == *" grpc "* ]]; then
  grpc_start "$work/bin/loadgate" "$work" || { say "the gRPC server did not start"; exit 2; }
  grpc_scenario "$work/grpc.yaml" "$conns" "$grpc_conns" "$secs"
fi
# WebSocket runs load the /ws echo of that same built-in server.
if [[ " ${modes[*]} " == *" ws "* ]]; then
  [ -n "$grpc_pid" ] || grpc_start "$work/bin/loadgate" "$work" || { say "the WebSocket server did not start"; exit 2; }
  ws_scenario "$work/ws.yaml" "$conns" "$secs"
  artillery_script "$work" "$conns"
fi

# tool_cmd TOOL MODE sets cmd to the command line that loads nginx.
tool_cmd() {
  local url short="" keepalive=true
  url="http://127.0.0.1:$(port_of "$1")/"
  if [ "$2" = short ] || [ "$2" = tlsshort ]; then short=1 keepalive=false; fi
  if [ "$2" = h2 ]; then url="http://127.0.0.1:$nginx_h2_port/"; fi
  if [ "$2" = h2tls ]; then url="https://127.0.0.1:$nginx_h2tls_port/"; fi
  if [ "$2" = tlsshort ]; then url="https://127.0.0.1:$(tls_port_of "$1")/"; fi
  if [ "$2" = tls ]; then url="https://127.0.0.1:$(tls_port_of "$1")/"; fi
  case $1 in
    wrk) cmd=(wrk -t1 -c"$conns" -d"${secs}s" --latency ${short:+-H "Connection: close"} "$url") ;;
    ab) cmd=(ab -q -r -t "$secs" -n 100000000 -c "$conns") ;;
    hey) cmd=(hey -z "${secs}s" -c "$conns") ;;
    vegeta) cmd=(vegeta attack -rate=0 -workers="$conns" -max-workers="$conns" -duration="${secs}s"
      -targets="$work/targets" -output="$work/vegeta.bin" -keepalive="$keepalive") ;;
    h2load) cmd=(h2load -c "$conns" -m "$streams" -D "$secs" "$url") ;;
    loadgate) cmd=("$work/bin/loadgate" run --no-progress -o "" "$work/$2.yaml") ;;
    loadgate-base) cmd=("$work/bin/loadgate-base" run --no-progress -o "" "$work/base-$2.yaml")
      [ -f "${cmd[-1]}" ] || cmd[-1]="$work/$2.yaml" ;; # the modes whose servers all tools share
    ghz) cmd=(ghz --insecure --proto "$grpc_proto" --call "$grpc_method" -d "$grpc_message"
      -c "$conns" --connections "$grpc_conns" -z "${secs}s" "127.0.0.1:$grpc_port") ;;
    artillery) cmd=(env WORKERS=1 WS_SECS="$secs" artillery run "$work/ws-artillery.yaml") ;;
  esac
  case $1/$short in
    ab/) cmd+=(-k "$url") ;; ab/1) cmd+=("$url") ;;
    hey/1) cmd+=(-disable-keepalive "$url") ;; hey/) cmd+=("$url") ;;
  esac
}

# parse TOOL FILE prints "rps p50_ms p99_ms errors" as the tool reported them.
parse() { awk -v tool="${1%-base}" -f "$bench_root/bench/parse.awk" "$2"; }

# counts MODE prints the server's "active accepted handled requests": nginx's
# stub, or for grpc and ws the built-in server's /stats in the same shape.
counts() { case $1 in grpc) grpc_stub ;; ws) ws_stub ;; *) stub ;; esac; }

# run_one TOOL MODE REP runs one measurement and appends it to runs.tsv:
# mode tool rep status tool_rps nginx_rps cpu_us rss_kib p50 p99 errors conns_per_req wall_s
run_one() {
  local tool=$1 mode=$2 rep=$3 out="$work/out" tf="$work/time" rc=0 s0 s1
  if ! can "$tool" "$mode"; then return 0; fi
  if ! have "$tool"; then
    printf '%s\t%s\t%s\tmissing\n' "$mode" "$tool" "$rep" >>"$work/runs.tsv"; return 0
  fi
  tool_cmd "$tool" "$mode"
  wait_idle
  rm -f "$tf" "$work/vegeta.bin"
  s0=$(counts "$mode") || s0=""
  /usr/bin/time -f "%U %S %M %e" -o "$tf" timeout -k 5 $((secs * 2 + 20)) \
    "${pin_tool[@]}" "${cmd[@]}" >"$out" 2>&1 </dev/null || rc=$?
  s1=$(counts "$mode") || s1=""
  if [ "$tool" = vegeta ] && [ -s "$work/vegeta.bin" ]; then vegeta report "$work/vegeta.bin" >>"$out" 2>&1 || true; fi
  local parsed times
  parsed=$(parse "$tool" "$out")
  times=$(tail -n 1 "$tf" 2>/dev/null || true)
  awk '{print $1 + $2}' <<<"$times" >>"$work/toolcpu"
  awk -v rc="$rc" -v s0="$s0" -v s1="$s1" -v t="$times" -v p="$parsed" -v secs="$secs" -v OFS='\t' \
    -v row="$mode $tool $rep" 'BEGIN {
      split(row, r, " "); split(s0, a, " "); split(s1, b, " "); split(t, u, " "); split(p, q, " ")
      n = b[4] - a[4] - 1; c = b[3] - a[3] - 1
      status = (rc == 0 && s0 != "" && s1 != "" && n > 0 && u[3] != "") ? "ok" : "error"
      if (status != "ok") { print r[1], r[2], r[3], "error" (rc ? " (exit " rc ")" : ""); exit }
      print r[1], r[2], r[3], status, q[1], sprintf("%.0f", n / secs), sprintf("%.2f", (u[1] + u[2]) * 1e6 / n),
        u[3], q[2], q[3], q[4], sprintf("%.3f", c / n), u[4]
    }' >>"$work/runs.tsv"
  if [ "$(tail -n 1 "$work/runs.tsv" | cut -f4)" != ok ]; then
    say "$tool $mode run $rep failed (exit $rc):"; tail -n 3 "$out" >&2
  fi
}

# rotate N WORD... prints the words rotated left by N, so that no tool always
# runs first in a repetition.
rotate() { local n=$1; shift; local a=("$@"); n=$((n % $#)); printf '%s\n' "${a[@]:n}" "${a[@]:0:n}"; }

: >"$work/runs.tsv"
: >"$work/toolcpu"
ticks0=$(cpu_ticks) runs_started=$SECONDS
for rep in $(seq "$repeats"); do
  for mode in "${modes[@]}"; do
    while read -r tool; do
      say "run $rep/$repeats: $tool $mode"
      run_one "$tool" "$mode" "$rep"
    done < <(rotate $((rep - 1)) "${tools[@]}")
  done
done
ticks1=$(cpu_ticks) wall=$((SECONDS - runs_started))

version_of() {
  case $1 in
    wrk) wrk -v 2>&1 | awk 'NR == 1 {print $2}' ;;
    ab) ab -V 2>&1 | awk 'NR == 1 {print $5}' ;;
    hey | vegeta) go_version_of "$1" ;;
    h2load) h2load --version 2>&1 | awk 'NR == 1 {print $2}' ;;
    loadgate | loadgate-base) "$work/bin/$1" version 2>&1 | awk 'NR == 1 {print $NF}' ;;
    ghz) go_version_of ghz ;;
    artillery) artillery version 2>&1 | awk '/^Artillery:/ {print $2; exit}' ;;
  esac
}

echo "## loadgate vs other load tools"
echo
echo "- machine: $(machine)"
echo "- nginx $(nginx -v 2>&1 | sed 's#.*/##'), 1 worker$([ ${#pin_server[@]} -gt 0 ] && echo ' on core 0, tools on core 1')"
for t in "${tools[@]}"; do
  if have "$t"; then echo "- $t: $(version_of "$t" || true)"; else echo "- $t: missing"; fi
done
echo "- $conns connections, ${secs} s per run, median of $repeats runs, $(go version | awk '{print $3}')"
[[ " ${modes[*]} " != *" tlsshort "* ]] || echo "- tlsshort: HTTPS to nginx ($(openssl x509 -noout -text -in "$nginx_dir/cert.pem" | awk '/Public Key Algorithm/ {print $NF; exit}'), TLS session resumption $([ "${RESUME:-true}" = true ] && echo on || echo off) in loadgate), a new connection per request"
[[ " ${modes[*]} " != *" tls "* ]] || echo "- tls: HTTPS keep-alive to nginx (TLS 1.3 and $(openssl x509 -noout -text -in "$nginx_dir/cert.pem" | awk '/Public Key Algorithm/ {print $NF; exit}'))"
[[ " ${modes[*]} " != *" h2 "* ]] || echo "- h2: h2c to nginx, $streams streams per connection (loadgate: $((conns * streams)) workers)"
[[ " ${modes[*]} " != *" h2tls "* ]] || echo "- h2tls: h2 over TLS (ALPN) to nginx, $streams streams per connection (loadgate: $((conns * streams)) workers)"
[[ " ${modes[*]} " != *" grpc "* ]] || echo "- grpc: loadgate serve --grpc$([ ${#pin_server[@]} -gt 0 ] && echo ' on core 0'), $grpc_method $grpc_message, $conns concurrent calls over $grpc_conns connections"
[[ " ${modes[*]} " != *" ws "* ]] || echo "- ws: the /ws echo of loadgate serve$([ ${#pin_server[@]} -gt 0 ] && echo ' on core 0'), $conns connections, each sending $ws_message and waiting for its echo; Artillery with 1 worker, its start-up (a few CPU seconds) included in its CPU"
others_cpu "$ticks0" "$ticks1" "$(awk '{n += $1} END {print n + 0}' "$work/toolcpu")" "$wall"
echo
awk -F'\t' -v modes="${modes[*]}" -v tools="${tools[*]}" -f "$bench_root/bench/summary.awk" "$work/runs.tsv"
echo
echo "rps (tool): as the tool reports it (vegeta: throughput). rps (nginx): requests nginx counted / ${secs} s."
echo "CPU/req: user+sys of the tool / requests nginx counted. vs base: nginx-counted rps and CPU/req"
echo "relative to wrk (keepalive, short, tlsshort and tls; short also ab) or h2load (h2, h2tls). conns/req: new connections nginx accepted per request."
echo "p50/p99 in ms as the tool reports them (ab: whole ms). errors: failures the tool reported."
[[ " ${modes[*]} " != *" ws "* ]] || echo "ws: the nginx columns are the WebSocket server's: messages /ws received and connections it accepted, from its /stats; artillery is the base."
[[ " ${modes[*]} " != *" grpc "* ]] || echo "grpc: the nginx columns are the gRPC server's: Echo/Say calls ended (any status) and connections accepted, from its /stats; ghz is the base."
if [ -n "$verbose" ]; then
  echo
  echo "| mode | tool | run | status | rps (tool) | rps (nginx) | CPU µs/req | RSS KiB | p50 ms | p99 ms | errors | conns/req | wall s |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  awk -F'\t' -v OFS=' | ' '{$1 = $1; print "| " $0 " |"}' "$work/runs.tsv"
fi
say "done in $((SECONDS - started)) s"
