# shellcheck shell=bash
# Helpers shared by bench/compare.sh and bench/connections.sh: finding or
# installing the tools, raising the open-file limit, and a loopback nginx
# (bench/nginx.conf.in) whose stub_status counts what every tool really sent.

export LC_ALL=C
bench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

say() { printf '%s\n' "$*" >&2; }

apt_updated=""
# need_apt PACKAGE COMMAND installs the Debian PACKAGE when COMMAND is missing.
need_apt() {
  command -v "$2" >/dev/null && return 0
  command -v apt-get >/dev/null || { say "missing $2 and no apt-get to install $1"; return 1; }
  if [ -z "$apt_updated" ]; then apt_updated=1; apt-get update -qq >&2 || true; fi
  say "installing $1"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null 2>&1 || true
  command -v "$2" >/dev/null || { say "could not install $1"; return 1; }
}

# need_go COMMAND MODULE VERSION... go-installs MODULE at the first VERSION
# that builds when COMMAND is missing.
need_go() {
  local cmd=$1 mod=$2 v; shift 2
  command -v "$cmd" >/dev/null && return 0
  for v in "$@"; do
    say "installing $mod@$v"
    (cd / && go install "$mod@$v") >&2 && return 0
  done
  say "could not install $cmd"; return 1
}

# need_npm COMMAND PACKAGE VERSION npm-installs PACKAGE@VERSION globally when
# COMMAND is missing, without the browser that some packages download at
# install time (Artillery's Playwright engine; the WebSocket engine needs none).
need_npm() {
  command -v "$1" >/dev/null && return 0
  command -v npm >/dev/null || { say "missing $1 and no npm to install $2"; return 1; }
  say "installing $2@$3"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install -g --no-audit --no-fund "$2@$3" >&2 || true
  command -v "$1" >/dev/null || { say "could not install $2"; return 1; }
}

# raise_nofile lifts this shell's open-file limit to 65536, or to the hard
# limit when the hard limit cannot be raised.
raise_nofile() {
  ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
}

# With two cores or more, nginx gets core 0 and the load tool core 1, so the
# tool's CPU cost cannot hide in the server's. PIN=false pins nothing: the
# server and the tool share every core, as on a CI runner, where what the
# tool costs is what the server loses.
pin_server=() pin_tool=()
if [ "${PIN:-true}" != false ] && [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
  # shellcheck disable=SC2034 # pin_tool is for the scripts that source this file
  pin_server=(taskset -c 0) pin_tool=(taskset -c 1)
fi

# machine prints one line describing the host.
machine() {
  printf '%s cores (%s), %s, Linux %s, open files %s\n' "$(nproc)" \
    "$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)" \
    "$(awk '/^MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)" "$(uname -r)" "$(ulimit -n)"
}

# cpu_ticks prints "machine server": CPU time in clock ticks spent so far by
# the whole machine (busy, not idle) and by the bench nginx's processes and
# the gRPC server.
cpu_ticks() {
  local p pids=("$nginx_pid" ${grpc_pid:+"$grpc_pid"})
  for p in $(pgrep -P "$nginx_pid" 2>/dev/null); do pids+=("$p"); done
  awk '/^cpu / {printf "%d ", $2 + $3 + $4}' /proc/stat
  for p in "${pids[@]}"; do cat "/proc/$p/stat" 2>/dev/null; done | awk '{n += $14 + $15} END {print n + 0}'
}

# others_cpu BEFORE AFTER TOOL_SECONDS WALL_SECONDS prints the share of the
# machine that processes other than nginx and the tools used during the runs,
# given cpu_ticks before and after: when it is large, the numbers are noisy.
others_cpu() {
  awk -v b="$1" -v a="$2" -v tool="$3" -v wall="$4" -v hz="$(getconf CLK_TCK)" -v cores="$(nproc)" 'BEGIN {
    split(b, x, " "); split(a, y, " ")
    other = ((y[1] - x[1]) - (y[2] - x[2])) / hz - tool
    share = wall > 0 ? 100 * other / (wall * cores) : 0
    if (share < 0) share = 0
    printf "- other processes used %.0f%% of the machine during the runs%s\n", share,
      (share >= 10 ? " (**busy machine: expect noisy numbers**)" : "")
  }'
}

# go_version_of COMMAND prints the module version a Go binary was built from.
go_version_of() {
  go version -m "$(command -v "$1")" 2>/dev/null | awk '$1 == "mod" {print $3; exit}'
}

nginx_pid="" nginx_port="" nginx_dir="" nginx_h2_port="" nginx_tls_port="" nginx_h2tls_port=""
# What nginx_start gives nginx: its workers, the connections of each, how
# long it keeps an idle connection, and the plain ports' listen backlog. A
# script that holds more connections sets them before nginx_start.
nginx_workers=1 nginx_conns=20000 nginx_keepalive=75s nginx_backlog=4096
# nginx_start DIR [PORTS] runs nginx ($nginx_workers workers) with its files in DIR,
# listening on PORTS (default 1) consecutive loopback ports below the
# ephemeral range, on the next one for h2c, and on PORTS more for HTTPS
# (a self-signed certificate made now) and on one more for HTTP/2 over TLS;
# it sets nginx_pid, nginx_port (the first port), nginx_h2_port,
# nginx_tls_port (the first HTTPS port) and nginx_h2tls_port.
# Separate ports keep one tool's leftover TIME_WAIT sockets out of another's way.
nginx_start() {
  nginx_dir=$1
  local try last tls_last
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 \
    -keyout "$nginx_dir/key.pem" -out "$nginx_dir/cert.pem" 2>/dev/null || { say "openssl could not make a certificate"; return 1; }
  for try in 1 2 3 4 5; do
    nginx_port=$((20000 + RANDOM % 12000)) last=$((nginx_port + ${2:-1} - 1)) nginx_h2_port=$((last + 1))
    nginx_tls_port=$((nginx_h2_port + 1)) tls_last=$((nginx_h2_port + ${2:-1}))
    nginx_h2tls_port=$((tls_last + 1))
    sed "s#@DIR@#$nginx_dir#g; s#@PORT@#$nginx_port#g; s#@LAST@#$last#g; s#@H2PORT@#$nginx_h2_port#g; s#@NOFILE@#$(ulimit -n)#g
      s#@WORKERS@#$nginx_workers#g; s#@CONNS@#$nginx_conns#g; s#@KEEPALIVE@#$nginx_keepalive#g; s#@BACKLOG@#$nginx_backlog#g
      s#@TLSPORT@#$nginx_tls_port#g; s#@TLSLAST@#$tls_last#g; s#@H2TLSPORT@#$nginx_h2tls_port#g" \
      "$bench_root/bench/nginx.conf.in" >"$nginx_dir/nginx.conf"
    "${pin_server[@]}" nginx -p "$nginx_dir" -c "$nginx_dir/nginx.conf" 2>>"$nginx_dir/stderr" &
    nginx_pid=$!
    for _ in $(seq 50); do
      stub >/dev/null 2>&1 && return 0
      kill -0 "$nginx_pid" 2>/dev/null || break
      sleep 0.1
    done
    say "nginx did not start on port $nginx_port (try $try): $(tail -n 1 "$nginx_dir/error.log" 2>/dev/null)"
    nginx_stop
  done
  tail -n 5 "$nginx_dir/error.log" "$nginx_dir/stderr" >&2 2>/dev/null || true
  return 1
}

# nginx_stop stops the nginx this script started, by its PID.
nginx_stop() {
  [ -n "$nginx_pid" ] || return 0
  kill "$nginx_pid" 2>/dev/null || true
  wait "$nginx_pid" 2>/dev/null || true
  nginx_pid=""
}

# stub prints nginx's counters "active accepted handled requests". Each call
# is itself one connection and one request, counted in what it prints.
# A busy nginx may answer late, so it tries three times.
stub() {
  local text try
  for try in 1 2 3; do
    text=$(curl -fs --max-time $((try * 2)) "http://127.0.0.1:$nginx_port/stub") && break
  done
  [ -n "$text" ] || return 1
  awk '/^Active/ {a = $3} /^ *[0-9]+ +[0-9]+ +[0-9]+ *$/ {print a, $1, $2, $3}' <<<"$text"
}

# wait_idle waits (at most 5 s) until the previous run's connections are gone.
wait_idle() {
  local active
  for _ in $(seq 50); do
    read -r active _ < <(stub || echo 0) || true
    [ "${active:-0}" -le 1 ] && return 0
    sleep 0.1
  done
}

# build_loadgate OUT builds ./cmd/loadgate of this checkout into OUT, or
# copies the binary named by $LOADGATE when that is set.
build_loadgate() {
  if [ -n "${LOADGATE:-}" ]; then cp "$LOADGATE" "$1"; return; fi
  (cd "$bench_root" && go build -o "$1" ./cmd/loadgate)
}

# scenario FILE KEEPALIVE CONCURRENCY SECONDS [PORT [SCHEME]] writes a
# one-phase closed-model scenario against the bench nginx; with SCHEME
# https, PORT must be one of its HTTPS ports.
scenario() {
  local tls=""
  [ "${6:-http}" = http ] || tls=", tls: { insecure_skip_verify: true }"
  cat >"$1" <<YAML
version: 1
name: bench
targets:
  - name: nginx
    http: { url: "${6:-http}://127.0.0.1:${5:-$nginx_port}/", keepalive: $2$tls }
phases:
  - name: measured
    duration: ${4}s
    concurrency: $3
YAML
}

# h2_scenario FILE CONNS STREAMS SECONDS [URL] writes a one-phase
# closed-model HTTP/2 scenario against the bench nginx's h2c port (or URL,
# https:// for h2 over TLS): CONNS connections carrying CONNS x STREAMS
# workers, as h2load -c CONNS -m STREAMS.
h2_scenario() {
  local tls=""
  [[ ${5:-http:} != https:* ]] || tls=", tls: { insecure_skip_verify: true }"
  cat >"$1" <<YAML
version: 1
name: bench-h2
targets:
  - name: nginx-h2
    http: { url: "${5:-http://127.0.0.1:$nginx_h2_port/}", http2: true, connections: $2$tls }
phases:
  - name: measured
    duration: ${4}s
    concurrency: $(($2 * $3))
YAML
}

# loadgate_bin WORK prints $LOADGATE, or builds loadgate from this checkout
# into WORK and prints that path.
loadgate_bin() {
  if [ -n "${LOADGATE:-}" ]; then echo "$LOADGATE"; return; fi
  (cd "$bench_root" && go build -o "$1/loadgate" ./cmd/loadgate) && echo "$1/loadgate"
}

# serve_builtin LG LOG starts `LG serve` on a free 127.0.0.1 port, logging
# to LOG, and waits until it answers; it sets serve_pid and serve_port.
# The caller stops it by that PID.
serve_builtin() {
  serve_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$1" serve --http "127.0.0.1:$serve_port" >"$2" 2>&1 &
  # shellcheck disable=SC2034 # read by the caller
  serve_pid=$!
  for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$serve_port/health" >/dev/null 2>&1 && return 0; sleep 0.05; done
  say "loadgate serve did not answer on 127.0.0.1:$serve_port"; return 1
}
