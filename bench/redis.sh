#!/usr/bin/env bash
# Compares loadgate's TCP client with redis-benchmark against the same
# loopback redis-server: PING (inline), SET and GET, CLIENTS clients, REQUESTS
# requests per command, on long connections (kept across requests) and short
# ones (a new connection per request: redis-benchmark -k 0, loadgate
# connection: per_iteration). redis-server is pinned to core 0 and each tool
# to core 1 (with two cores or more), so a tool's CPU cannot hide in the
# server's. Each (mode, command) pair runs every tool once per repetition,
# tools interleaved and their order rotated; one table of medians.
#
#   bench/redis.sh [-v] [-c CLIENTS] [-n REQUESTS] [-r REPEATS] [-m MODES] [-t COMMANDS]
#
# The same settings can come from the environment: CLIENTS (default 50),
# REQUESTS (100000), REPEATS (3), MODES (long,short), COMMANDS (ping,set,get).
# -v also prints every run. loadgate is built from this checkout, or taken
# from $LOADGATE when set; LOADGATE_BASE=BINARY adds another loadgate build,
# "loadgate-base", interleaved with the two, to compare builds side by side.
# Needs redis-server and redis-tools (installed with apt-get when missing)
# and GNU time.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

clients=${CLIENTS:-50} requests=${REQUESTS:-100000} repeats=${REPEATS:-3}
modes=${MODES:-long,short} commands=${COMMANDS:-ping,set,get} verbose=""
usage() { sed -n '2,19s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while getopts "vc:n:r:m:t:h" opt; do
  case $opt in
    v) verbose=1 ;; c) clients=$OPTARG ;; n) requests=$OPTARG ;; r) repeats=$OPTARG ;;
    m) modes=$OPTARG ;; t) commands=$OPTARG ;; *) usage ;;
  esac
done
for n in "$clients" "$requests" "$repeats"; do [[ $n =~ ^[1-9][0-9]*$ ]] || usage; done
IFS=, read -r -a modes <<<"$modes"
IFS=, read -r -a commands <<<"$commands"
for m in "${modes[@]}"; do [[ $m =~ ^(long|short)$ ]] || { say "unknown mode $m"; usage; }; done
for c in "${commands[@]}"; do [[ $c =~ ^(ping|set|get)$ ]] || { say "unknown command $c"; usage; }; done
tools=(redis-benchmark loadgate)
[ -z "${LOADGATE_BASE:-}" ] || tools+=(loadgate-base)

work=$(mktemp -d)
redis_pid="" redis_port=""
cleanup() {
  if [ -n "$redis_pid" ]; then kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

raise_nofile
if ! { need_apt redis-server redis-server && need_apt redis-tools redis-benchmark && need_apt time /usr/bin/time; }; then
  say "redis-server, redis-benchmark and GNU time are required"; exit 2
fi
build_loadgate "$work/loadgate" || { say "loadgate did not build"; exit 2; }
[ -z "${LOADGATE_BASE:-}" ] || cp "$LOADGATE_BASE" "$work/loadgate-base"

# redis_start runs redis-server (pinned to core 0) on a free loopback port.
redis_start() {
  local try
  for try in 1 2 3 4 5; do
    redis_port=$((20000 + RANDOM % 12000))
    "${pin_server[@]}" redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no \
      --dir "$work" --maxclients 10000 >"$work/redis.log" 2>&1 &
    redis_pid=$!
    for _ in $(seq 50); do
      rcli ping >/dev/null 2>&1 && return 0
      kill -0 "$redis_pid" 2>/dev/null || break
      sleep 0.1
    done
    say "redis-server did not start on port $redis_port (try $try)"
    kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; redis_pid=""
  done
  return 1
}
rcli() { redis-cli -h 127.0.0.1 -p "$redis_port" "$@"; }

# served COMMAND prints how many times redis has run COMMAND so far (its
# INFO commandstats), the count neither tool reports itself.
served() {
  rcli info commandstats | tr -d '\r' | awk -F'[:=,]' -v k="cmdstat_$1" '$1 == k {n = $3} END {print n + 0}'
}

# redis_ticks prints the CPU time redis-server has used so far, in ticks.
redis_ticks() { awk '{print $14 + $15}' "/proc/$redis_pid/stat"; }

redis_start || { say "redis-server did not start"; exit 2; }

# scenario FILE COMMAND MODE writes loadgate's one-target scenario: the
# commands redis-benchmark sends without -r (its key, its 3-byte value) as
# inline commands, one per iteration.
scenario() {
  local conn=persistent steps
  [ "$3" = long ] || conn=per_iteration
  # shellcheck disable=SC2016 # $3 is redis's length line, not a variable
  case $2 in
    ping) steps='        - send: PING
        - expect: { equals: "+PONG" }' ;;
    set) steps='        - send: SET key:__rand_int__ xxx
        - expect: { equals: "+OK" }' ;;
    get) steps='        - send: GET key:__rand_int__
        - expect: { equals: "$3" }
        - expect: { equals: "xxx" }' ;;
  esac
  cat >"$1" <<YAML
version: 1
name: redis-bench
targets:
  - name: $2
    tcp:
      address: 127.0.0.1:$redis_port
      connection: $conn
      timeout: 5s
      framing: { line: "\r\n" }
      iteration:
$steps
phases:
  - name: measured
    requests: $requests
    concurrency: $clients
    duration: 300s
YAML
}

# tool_cmd TOOL MODE COMMAND sets cmd to the command line of one run.
tool_cmd() {
  local test=$3 keep=1
  [ "$3" != ping ] || test=ping_inline
  [ "$2" = long ] || keep=0
  case $1 in
    redis-benchmark) cmd=(redis-benchmark -h 127.0.0.1 -p "$redis_port" -c "$clients" -n "$requests" -k "$keep" -t "$test" -q) ;;
    loadgate*) cmd=("$work/$1" run --no-progress -o "" --json "$work/results.json" "$work/$2-$3.yaml") ;;
  esac
}

# parse TOOL FILE prints "rps errors" as the tool reported them.
parse() {
  case $1 in
    redis-benchmark) tr '\r' '\n' <"$2" | awk '/requests per second/ {for (i = 1; i < NF; i++) if ($(i + 1) == "requests") r = $i}
      END {print (r == "" ? "-" : r), 0}' ;;
    loadgate*) jq -r '.scenarios[0].cases[0].stats | "\(.rps) \(.failed)"' "$work/results.json" 2>/dev/null || echo "- -" ;;
  esac
}

# run_one TOOL MODE COMMAND REP runs one measurement and appends to runs.tsv:
# mode command tool rep status tool_rps served served_rps cpu_us_per_req redis_us_per_req errors wall_s
run_one() {
  local tool=$1 mode=$2 command=$3 rep=$4 out="$work/out" tf="$work/time" rc=0 c0 c1 t0 t1
  tool_cmd "$tool" "$mode" "$command"
  rm -f "$tf" "$work/results.json"
  # redis-benchmark's SET writes a random value; loadgate's GET expects xxx.
  [ "$command" != get ] || rcli set key:__rand_int__ xxx >/dev/null
  c0=$(served "$command") t0=$(redis_ticks)
  /usr/bin/time -f "%U %S %e" -o "$tf" timeout -k 5 600 "${pin_tool[@]}" "${cmd[@]}" >"$out" 2>&1 </dev/null || rc=$?
  c1=$(served "$command") t1=$(redis_ticks)
  local parsed times
  parsed=$(parse "$tool" "$out")
  times=$(tail -n 1 "$tf" 2>/dev/null || true)
  awk -v rc="$rc" -v n="$((c1 - c0))" -v ticks="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v t="$times" -v p="$parsed" \
    -v want="$requests" -v row="$mode $command $tool $rep" -v OFS='\t' 'BEGIN {
      split(row, r, " "); split(t, u, " "); split(p, q, " ")
      ok = rc == 0 && n > 0 && u[3] > 0 && q[1] != "-"
      if (!ok) { print r[1], r[2], r[3], r[4], "error" (rc ? " (exit " rc ")" : ""); exit }
      print r[1], r[2], r[3], r[4], (n == want ? "ok" : "count " n " of " want), sprintf("%.0f", q[1]), n,
        sprintf("%.0f", n / u[3]), sprintf("%.2f", (u[1] + u[2]) * 1e6 / n), sprintf("%.2f", ticks / hz * 1e6 / n), q[2], u[3]
    }' >>"$work/runs.tsv"
  if [[ "$(tail -n 1 "$work/runs.tsv" | cut -f5)" == error* ]]; then
    say "$tool $mode $command run $rep failed (exit $rc):"; tail -n 3 "$out" >&2
  fi
}

rotate() { local n=$1; shift; local a=("$@"); n=$((n % $#)); printf '%s\n' "${a[@]:n}" "${a[@]:0:n}"; }

for m in "${modes[@]}"; do for c in "${commands[@]}"; do scenario "$work/$m-$c.yaml" "$c" "$m"; done; done
: >"$work/runs.tsv"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
started=$SECONDS
for rep in $(seq "$repeats"); do
  for mode in "${modes[@]}"; do
    for command in "${commands[@]}"; do
      while read -r tool; do
        say "run $rep/$repeats: $tool $mode $command"
        run_one "$tool" "$mode" "$command" "$rep"
      done < <(rotate $((rep + ${#command})) "${tools[@]}")
    done
  done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

echo "## loadgate vs redis-benchmark (framed TCP)"
echo
echo "- machine: $(machine)"
echo "- $(redis-server --version | awk '{print $1, $2, $3}'), 1 thread$([ ${#pin_server[@]} -gt 0 ] && echo ' on core 0, tools on core 1')"
echo "- loadgate: $("$work/loadgate" version 2>&1 | awk 'NR == 1 {print $NF}'), $(go version | awk '{print $3}')"
[ -z "${LOADGATE_BASE:-}" ] || echo "- loadgate-base: $LOADGATE_BASE, $("$work/loadgate-base" version 2>&1 | awk 'NR == 1 {print $NF}')"
echo "- $clients clients, $requests requests per command and run, median of $repeats runs, tools interleaved"
echo "- load average before: $load0, after: $load1$(awk -v l="${load1%% *}" 'BEGIN {if (l > 2) print " (**busy machine: figures indicative only**)"}')"
echo
echo "| mode | command | tool | rps (tool) | rps (redis) | CPU µs/req | redis µs/req | errors | runs ok | rps × | CPU/req × |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
# Medians per (mode, command, tool); the ratios are loadgate's over
# redis-benchmark's medians, which ran interleaved with it.
sort -t$'\t' -k1,1 -k2,2 -k3,3 "$work/runs.tsv" | awk -F'\t' -v modes="${modes[*]}" -v commands="${commands[*]}" -v tools="${tools[*]}" '
  function med(s,   a, n, i, j, x) {
    n = split(s, a, " "); if (n == 0) return ""
    for (i = 2; i <= n; i++) { x = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  $5 == "ok" { k = $1 SUBSEP $2 SUBSEP $3; rps[k] = rps[k] " " $6; srps[k] = srps[k] " " $8
    cpu[k] = cpu[k] " " $9; red[k] = red[k] " " $10; err[k] += $11; ok[k]++ }
  { all[$1 SUBSEP $2 SUBSEP $3]++ }
  END {
    nm = split(modes, M, " "); nc = split(commands, C, " "); nt = split(tools, T, " ")
    for (i = 1; i <= nm; i++) for (j = 1; j <= nc; j++) {
      b = M[i] SUBSEP C[j] SUBSEP "redis-benchmark"
      for (t = 1; t <= nt; t++) {
        tool = T[t]; k = M[i] SUBSEP C[j] SUBSEP tool; l = k
        if (!ok[k]) { printf "| %s | %s | %s | - | - | - | - | - | 0/%d | | |\n", M[i], C[j], tool, all[k]; continue }
        rx = cx = ""
        if (t > 1 && ok[b]) { rx = sprintf("%.2f", med(srps[l]) / med(srps[b])); cx = sprintf("%.2f", med(cpu[l]) / med(cpu[b])) }
        printf "| %s | %s | %s | %.0f | %.0f | %.2f | %.2f | %d | %d/%d | %s | %s |\n", M[i], C[j], tool,
          med(rps[k]), med(srps[k]), med(cpu[k]), med(red[k]), err[k], ok[k], all[k], rx, cx
      }
    }
  }'
echo
echo "rps (tool): as the tool reports it. rps (redis): commands redis counted (INFO commandstats) / the"
echo "tool's wall time, start-up included. CPU µs/req: the tool's user+sys / commands redis counted;"
echo "redis µs/req: the same for redis-server. rps × and CPU/req ×: each loadgate build's median over"
echo "redis-benchmark's, on rps (redis) and CPU µs/req. runs ok: runs whose redis count is REQUESTS."
echo "loadgate sends SET and GET inline, redis-benchmark in RESP multi-bulk form; PING is inline in both."
if [ -n "$verbose" ]; then
  echo
  echo "| mode | command | tool | run | status | rps (tool) | served | rps (redis) | CPU µs/req | redis µs/req | errors | wall s |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  awk -F'\t' -v OFS=' | ' '{$1 = $1; print "| " $0 " |"}' "$work/runs.tsv"
fi
say "done in $((SECONDS - started)) s"
