# shellcheck shell=bash disable=SC2154 # grpc_http_port comes from grpc.sh
# The WebSocket side of bench/compare.sh's ws mode: the echo at /ws of
# loadgate's built-in server (the one grpc.sh starts, pinned like nginx),
# loaded by loadgate and by Artillery's WebSocket engine with the same
# message, each connection sending it and waiting for its echo before the
# next; the server's /stats counts what really arrived. Sourced after
# lib.sh and grpc.sh.

ws_message='{"op":"ping"}'

# ws_stub prints the server's WebSocket counters in the shape of nginx's
# stub, "active accepted handled requests": 0, the connections /ws
# accepted (twice) and the messages it received, each one more than the
# server's, as compare.sh takes one off for the stub's own connection and
# request.
ws_stub() {
  local js
  js=$(curl -fs --max-time 2 "http://127.0.0.1:$grpc_http_port/stats") || return 1
  awk -v js="$js" 'BEGIN {
    if (!match(js, /"ws_connections":[0-9]+/)) exit 1
    conns = substr(js, RSTART + 17, RLENGTH - 17) + 1
    if (!match(js, /"ws_messages":[0-9]+/)) exit 1
    print 0, conns, conns, substr(js, RSTART + 14, RLENGTH - 14) + 1
  }'
}

# ws_scenario FILE CONNS SECONDS writes loadgate's scenario: CONNS workers,
# each on its own connection, sending ws_message and checking its echo.
ws_scenario() {
  cat >"$1" <<YAML
version: 1
name: bench-ws
targets:
  - name: echo
    websocket:
      url: ws://127.0.0.1:${grpc_http_port}/ws
      connection: persistent
      iteration:
        - send: '${ws_message}'
        - expect: { equals: '${ws_message}' }
phases:
  - name: measured
    duration: ${3}s
    concurrency: $2
YAML
}

# artillery_script DIR CONNS writes DIR/ws-artillery.yaml and its
# processor: CONNS virtual users arriving at once, each on its own
# connection, sending ws_message and matching its echo in a loop that ends
# WS_SECS seconds after the script is loaded (Artillery's phases only
# bound arrivals, not how long a user runs).
artillery_script() {
  cat >"$1/ws-until.js" <<'JS'
// Ends every virtual user's loop WS_SECS seconds after the workers load this.
const end = Date.now() + Number(process.env.WS_SECS || 5) * 1000;
module.exports = { running: (context, next) => next(Date.now() < end) };
JS
  cat >"$1/ws-artillery.yaml" <<YAML
config:
  target: "ws://127.0.0.1:${grpc_http_port}/ws"
  processor: "./ws-until.js"
  phases:
    - duration: 1
      arrivalCount: $2
scenarios:
  - engine: ws
    flow:
      - loop:
          - send:
              payload: '${ws_message}'
              match: { json: "$.op", value: "ping" }
        whileTrue: running
YAML
}
