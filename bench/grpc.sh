# shellcheck shell=bash disable=SC2154 # bench_root and pin_server come from lib.sh
# The server side of bench/compare.sh's grpc mode: loadgate's built-in
# server (`loadgate serve --grpc`) pinned like nginx, its Echo/Say as the
# call under load and its /stats as the neutral count of what every tool
# really sent. Sourced after lib.sh.

grpc_pid="" grpc_port="" grpc_http_port=""
grpc_method=loadgate.echo.v1.Echo/Say grpc_message='{"text":"hi"}'
grpc_proto="$bench_root/testdata/proto/echo.proto"

# grpc_start BIN DIR starts `BIN serve --grpc` on two free loopback ports
# (HTTP for /stats, then gRPC), its log in DIR; it sets grpc_pid and the ports.
grpc_start() {
  local try
  for try in 1 2 3 4 5; do
    grpc_http_port=$((20000 + RANDOM % 12000)) grpc_port=$((grpc_http_port + 1))
    "${pin_server[@]}" "$1" serve --http "127.0.0.1:$grpc_http_port" --grpc "127.0.0.1:$grpc_port" \
      >"$2/grpc-server.log" 2>&1 &
    grpc_pid=$!
    for _ in $(seq 50); do
      grpc_stub >/dev/null 2>&1 && return 0
      kill -0 "$grpc_pid" 2>/dev/null || break
      sleep 0.1
    done
    say "the gRPC server did not start on port $grpc_port (try $try): $(tail -n 1 "$2/grpc-server.log" 2>/dev/null)"
    grpc_stop
  done
  return 1
}

# grpc_stop stops the server grpc_start started, by its PID.
grpc_stop() {
  [ -n "$grpc_pid" ] || return 0
  kill "$grpc_pid" 2>/dev/null || true
  wait "$grpc_pid" 2>/dev/null || true
  grpc_pid=""
}

# grpc_stub prints the server's counters in the shape of nginx's stub,
# "active accepted handled requests": 0, the gRPC connections accepted
# (twice), and the Say calls that ended, whatever their status. Accepted and
# calls are one more than the server's, as nginx's stub counts its own
# connection and request, so compare.sh reads both the same way.
grpc_stub() {
  local js
  js=$(curl -fs --max-time 2 "http://127.0.0.1:$grpc_http_port/stats") || return 1
  awk -v js="$js" -v key="\"/$grpc_method\":{" 'BEGIN {
    if (!match(js, /"grpc_accepted":[0-9]+/)) exit 1
    acc = substr(js, RSTART + 16, RLENGTH - 16) + 1
    calls = 1
    if ((i = index(js, key)) > 0) {
      s = substr(js, i + length(key)); s = substr(s, 1, index(s, "}") - 1)
      n = split(s, kv, ",")
      for (j = 1; j <= n; j++) { split(kv[j], p, ":"); calls += p[2] }
    }
    print 0, acc, acc, calls
  }'
}

# grpc_scenario FILE CONCURRENCY CONNECTIONS SECONDS writes a one-phase
# closed-model scenario calling Echo/Say as ghz -c CONCURRENCY
# --connections CONNECTIONS -z SECONDS does.
grpc_scenario() {
  cat >"$1" <<YAML
version: 1
name: bench-grpc
targets:
  - name: echo-say
    grpc:
      address: 127.0.0.1:${grpc_port}
      method: ${grpc_method}
      proto: ${grpc_proto}
      message: '${grpc_message}'
      connections: $3
phases:
  - name: measured
    duration: ${4}s
    concurrency: $2
YAML
}
