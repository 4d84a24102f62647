#!/usr/bin/env bash
# Every request ends once: runs duration-bound phases against servers that
# count what they receive, and compares loadgate's request count with the
# server's own, exactly.
#
#   bench/accounting.sh [-r RUNS]
#
# Servers, each on 127.0.0.1 and started and stopped here, by PID:
#   nginx (access log lines)   HTTP/1.1 on the event loop and on --workers,
#                              keep-alive and a new connection per request;
#                              HTTPS (TLS, a certificate made here), both,
#                              kept-alive on the event loop and on --workers;
#                              HTTP/2 (h2c)
#   loadgate serve (/stats)    gRPC calls, WebSocket messages, HTTP/1.1 while
#                              the server stalls across the phase's end
#   redis-server (INFO stats)  framed TCP, redis PING
# Each row runs RUNS times (default 3); a run prints loadgate's requests,
# the server's count and their difference, which must be 0.
#
# Needs nginx (nginx-light), redis-server, jq, curl and openssl. LOADGATE names the
# binary; default: built from this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
while getopts "r:" o; do
  case $o in
    r) runs=$OPTARG ;;
    *) echo "usage: $0 [-r RUNS]" >&2; exit 2 ;;
  esac
done

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

lg=${LOADGATE:-}
if [ -z "$lg" ]; then
  lg=$work/loadgate
  go build -o "$lg" ./cmd/loadgate
fi
PATH=$PATH:/usr/sbin

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# nginx answering every request at once, one access log line per request.
ngx_port=$(port)
ngx_h2=$(port)
ngx_tls=$(port)
mkdir -p "$work/nginx"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 \
  -keyout "$work/nginx/key.pem" -out "$work/nginx/cert.pem" 2>/dev/null
cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
daemon off;
events { worker_connections 4096; }
http {
  access_log $work/nginx/access.log;
  client_body_temp_path $work/nginx;
  keepalive_requests 1000000;
  server { listen 127.0.0.1:$ngx_port; location / { return 200 "ok"; } }
  server { listen 127.0.0.1:$ngx_h2 http2; location / { return 200 "ok"; } }
  server { listen 127.0.0.1:$ngx_tls ssl; ssl_certificate $work/nginx/cert.pem; ssl_certificate_key $work/nginx/key.pem;
    location / { return 200 "ok"; } }
}
EOF
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
pids+=($!)

# The built-in server: HTTP/1.1 (and /ws) and gRPC; a second one stalls
# 3 s of every 4 s from its start.
lg_http=$(port) lg_grpc=$(port) lg_stall=$(port)
"$lg" serve --http "127.0.0.1:$lg_http" --grpc "127.0.0.1:$lg_grpc" >/dev/null 2>&1 &
pids+=($!)

redis_port=$(port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >/dev/null &
pids+=($!)

for _ in $(seq 50); do
  curl -fso /dev/null "http://127.0.0.1:$ngx_port/" && curl -fso /dev/null "http://127.0.0.1:$lg_http/health" && break
  sleep 0.1
done

phase='phases: [ { name: m, duration: 2s, concurrency: 50 } ]'
scenario() { # name target-yaml
  printf 'version: 1\nname: %s\ntargets:\n  - name: t\n%s\n%s\n' "$1" "$2" "$phase" >"$work/$1.yaml"
}
scenario h1 "    http: { url: \"http://127.0.0.1:$ngx_port/\", keepalive: true }"
scenario h1short "    http: { url: \"http://127.0.0.1:$ngx_port/\", keepalive: false }"
scenario https "    http: { url: \"https://127.0.0.1:$ngx_tls/\", keepalive: true, tls: { insecure_skip_verify: true } }"
scenario httpsshort "    http: { url: \"https://127.0.0.1:$ngx_tls/\", keepalive: false, tls: { insecure_skip_verify: true } }"
scenario h2 "    http: { url: \"http://127.0.0.1:$ngx_h2/\", http2: true, connections: 5 }"
scenario grpc "    grpc: { address: \"127.0.0.1:$lg_grpc\", method: loadgate.echo.v1.Echo/Say, proto: $PWD/testdata/proto/echo.proto, message: { text: hi }, connections: 5 }"
scenario ws "    websocket: { url: \"ws://127.0.0.1:$lg_http/ws\", connection: persistent, iteration: [ { send: ping }, { expect: { contains: ping } } ] }"
scenario tcp "    tcp: { address: \"127.0.0.1:$redis_port\", connection: persistent, framing: { line: \"\\r\\n\" }, iteration: [ { send: PING }, { expect: { equals: \"+PONG\" } } ] }"
scenario stall "    http: { url: \"http://127.0.0.1:$lg_stall/\", keepalive: true, timeout: 10s }"

lines() { wc -l <"$work/nginx/access.log"; }
stat() { curl -fs "http://127.0.0.1:$lg_http/stats" | jq -r ".$1"; }
redis_cmds() { redis-cli -p "$redis_port" INFO stats | tr -d '\r' | sed -n 's/^total_commands_processed://p'; }

# row LABEL SCENARIO COUNTER [run flags...]: COUNTER prints the server's
# count so far; the difference over a run is what it received.
row() {
  local label=$1 sc=$2 counter=$3
  shift 3
  for i in $(seq "$runs"); do
    local before after got
    before=$($counter)
    "$lg" run --no-progress -o "$work/out" "$@" "$work/$sc.yaml" >"$work/console.txt" 2>&1 || true
    sleep 0.2 # nginx writes its log line after the response
    after=$($counter)
    got=$(jq '[.scenarios[0].cases[0].phases[].requests] | add' "$work/out/results.json")
    local server=$((after - before))
    case $counter in
      redis_cmds) server=$((server - 1)) ;; # the INFO that read the count
      stat_requests) server=$((server - 1)) ;; # the /stats that read it
    esac
    printf '%-34s run %d  loadgate %8d  server %8d  difference %d\n' "$label" "$i" "$got" "$server" $((got - server))
  done
}
stat_requests() { stat requests; }
stat_grpc() { stat grpc_messages; }
stat_ws() { stat ws_messages; }

row "HTTP/1.1 keep-alive, event loop" h1 lines
row "HTTP/1.1 keep-alive, --workers" h1 lines --workers
row "HTTP/1.1 new connection, event loop" h1short lines
row "HTTP/1.1 new connection, --workers" h1short lines --workers
row "HTTPS keep-alive, event loop" https lines
row "HTTPS keep-alive, --workers" https lines --workers
row "HTTPS new connection" httpsshort lines
row "HTTP/2 h2c, 5 connections" h2 lines
row "gRPC unary, 5 connections" grpc stat_grpc
row "WebSocket, persistent" ws stat_ws
row "framed TCP, redis PING" tcp redis_cmds

# The stalling server: started just before each run so that its stall
# (3 s of every 4 s) spans the phase's end.
for i in $(seq "$runs"); do
  "$lg" serve --http "127.0.0.1:$lg_stall" --stall 4s/3s >/dev/null 2>&1 &
  sp=$!
  sleep 3.05
  "$lg" run --no-progress -o "$work/out" "$work/stall.yaml" >"$work/console.txt" 2>&1 || true
  server=$(($(curl -fs "http://127.0.0.1:$lg_stall/stats" | jq -r .requests) - 1))
  kill "$sp"; wait "$sp" 2>/dev/null || true
  got=$(jq '[.scenarios[0].cases[0].phases[].requests] | add' "$work/out/results.json")
  stalls=$(jq -c '[.scenarios[0].cases[0].phases[].stalls[]? | {at_s: (.at_ns/1e9*10|round/10), s: (.duration_ns/1e9*10|round/10), waiting}]' "$work/out/results.json")
  printf '%-34s run %d  loadgate %8d  server %8d  difference %d  stalls %s\n' "HTTP/1.1, server stalls at the end" "$i" "$got" "$server" $((got - server)) "$stalls"
done
