#!/usr/bin/env bash
# Where a keep-alive HTTP/1.1 request's CPU goes, for wrk and loadgate side by
# side against the same loopback nginx (nginx on core 0, the tool on core 1):
# user and system time per request, the system calls each tool makes per
# request, and, from perf, the share of the tool's samples spent in the
# kernel and the kernel functions that take the most. A tool that makes the
# same system calls as another cannot cost less than that other's kernel time
# per request: the script prints that floor as a ratio of wrk's whole cost.
#
#   bench/floor.sh
#
# Environment: CONNS (default 50), SECS (5), LOADGATE (a loadgate binary to
# use instead of building this checkout). Needs nginx, wrk, strace, perf and
# GNU time (installed with apt-get when missing).
# Exit 0 when every measurement ran, 1 when one failed, 2 on setup errors.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

conns=${CONNS:-50} secs=${SECS:-5}
usage() { sed -n '2,15s/^# \{0,1\}//p' "$0" >&2; exit 2; }
[ $# -eq 0 ] || usage
for n in "$conns" "$secs"; do [[ $n =~ ^[1-9][0-9]*$ ]] || usage; done
say "expected duration ≈ $((secs * 6 + 20)) s"

work=$(mktemp -d)
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() { nginx_stop; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

raise_nofile
if ! { need_apt nginx-light nginx && need_apt curl curl && need_apt time /usr/bin/time &&
  need_apt wrk wrk && need_apt strace strace && need_apt linux-perf perf; }; then
  say "nginx, curl, GNU time, wrk, strace and perf are required"; exit 2
fi
build_loadgate "$work/loadgate" || { say "loadgate did not build"; exit 2; }
nginx_start "$work" 2
url="http://127.0.0.1:$((nginx_port + 1))/"
scenario "$work/keepalive.yaml" true "$conns" "$secs" "$((nginx_port + 1))"

# tool_cmd TOOL sets cmd to the command line that loads nginx.
tool_cmd() {
  case $1 in
    wrk) cmd=(wrk -t1 -c"$conns" -d"${secs}s" "$url") ;;
    loadgate) cmd=("$work/loadgate" run --no-progress -o "" "$work/keepalive.yaml") ;;
  esac
}

# requests_during CMD... runs CMD pinned to the tool's core and prints how
# many requests nginx answered meanwhile (its stub's own request excluded).
requests_during() {
  local s0 s1
  wait_idle
  s0=$(stub) || return 1
  "${pin_tool[@]}" "$@" >"$work/out" 2>&1 </dev/null || { tail -n 3 "$work/out" >&2; return 1; }
  s1=$(stub) || return 1
  awk -v a="$s0" -v b="$s1" 'BEGIN { split(a, x, " "); split(b, y, " "); print y[4] - x[4] - 1 }'
}

# out_segments prints how many TCP segments this machine has sent: both
# ends of a loopback exchange count, so a request and its response in one
# segment each make 2, and every pure ACK adds one.
out_segments() { awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "OutSegs") c = i; h = 1 } else print $c }' /proc/net/snmp; }

rc=0
echo "## Where a keep-alive request's CPU goes: wrk and loadgate"
echo
echo "- machine: $(machine); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- $conns connections, $secs s per run, nginx $(nginx -v 2>&1 | sed 's#.*/##') on core 0, the tool on core 1"
echo
echo "| tool | requests/s | user µs/req | system µs/req | total µs/req | TCP segments/req | system calls/req | kernel share of samples |"
echo "|---|---:|---:|---:|---:|---:|---|---:|"
declare -A total sys
for tool in wrk loadgate; do
  tool_cmd "$tool"
  # 1. CPU per request, with nothing attached to the tool.
  g0=$(out_segments)
  n=$(requests_during /usr/bin/time -f "%U %S" -o "$work/time" "${cmd[@]}") || { rc=1; continue; }
  g1=$(out_segments)
  read -r u s <"$work/time"
  # 2. System calls per request: strace slows the tool, so it has its own run
  # and its own count of requests.
  ns=$(requests_during strace -f -c -o "$work/strace" "${cmd[@]}") || { rc=1; continue; }
  calls=$(awk -v n="$ns" '$NF ~ /^[a-z_0-9]+$/ && $(NF-1) ~ /^[0-9]+$/ && $NF != "total" {
      c = NF == 6 ? $(NF-2) : $(NF-1)
      if (c / n >= 0.01) { printf "%s%s %.2f", sep, $NF, c / n; sep = ", " } }' "$work/strace")
  # 3. Where the samples fall: user space or the kernel.
  requests_during perf record -q -e cpu-clock -g -o "$work/perf.$tool" -- "${cmd[@]}" >/dev/null || { rc=1; continue; }
  kshare=$(perf report -q -i "$work/perf.$tool" --no-children --sort dso 2>/dev/null |
    awk '$1 ~ /%$/ { p = $1 + 0; all += p; if ($2 ~ /kernel/) k += p } END { if (all) printf "%.0f %%", 100 * k / all }')
  perf report -q -i "$work/perf.$tool" --no-children --sort sym 2>/dev/null >"$work/syms.$tool" || true
  awk 'NF && $1 ~ /%$/ && ++n <= 12' "$work/syms.$tool" >"$work/top.$tool"
  perf report -q -i "$work/perf.$tool" --children --sort sym -g none 2>/dev/null >"$work/incl.$tool" || true
  total[$tool]=$(awk -v u="$u" -v s="$s" -v n="$n" 'BEGIN { printf "%.3f", (u + s) * 1e6 / n }')
  sys[$tool]=$(awk -v s="$s" -v n="$n" 'BEGIN { printf "%.3f", s * 1e6 / n }')
  awk -v t="$tool" -v u="$u" -v s="$s" -v n="$n" -v d="$secs" -v c="$calls" -v k="$kshare" -v g="$((g1 - g0))" 'BEGIN {
    printf "| %s | %.0f | %.2f | %.2f | %.2f | %.2f | %s | %s |\n", t, n / d, u * 1e6 / n, s * 1e6 / n, (u + s) * 1e6 / n, g / n, c, k }'
done
echo
# The kernel paths a request goes through, each with everything it calls:
# sending (write), receiving (read), waiting (epoll), the netfilter hooks
# every loopback segment passes, and the system-call entry and exit alone.
echo "| tool | write | read | epoll | netfilter | entry and exit of system calls |"
echo "|---|---:|---:|---:|---:|---:|"
for tool in wrk loadgate; do
  [ -s "$work/incl.$tool" ] || continue
  awk -v t="$tool" '$1 ~ /%$/ {
      sym = $NF; self = $2 + 0; all = $1 + 0
      if (sym == "ksys_write") w = all; else if (sym == "ksys_read") r = all
      else if (sym ~ /^do_epoll_(wait|pwait)$/ || sym == "do_epoll_ctl") e += all
      else if (sym == "nf_hook_slow") f = all
      else if (sym ~ /^(entry_SYSCALL_64|do_syscall_64|syscall_exit_to_user_mode|entry_SYSCALL_64_after_hwframe|syscall_return_via_sysret)$/) x += self
    } END { printf "| %s | %.0f %% | %.0f %% | %.0f %% | %.0f %% | %.0f %% |\n", t, w, r, e, f, x }' "$work/incl.$tool"
done
echo
for tool in wrk loadgate; do
  [ -s "$work/top.$tool" ] || continue
  echo "### $tool: the functions with the most samples (perf, cpu-clock)"
  echo
  echo '```'
  cat "$work/top.$tool"
  echo '```'
  echo
done
if [ -n "${total[wrk]:-}" ] && [ -n "${total[loadgate]:-}" ]; then
  awk -v wt="${total[wrk]}" -v ws="${sys[wrk]}" -v lt="${total[loadgate]}" -v ls="${sys[loadgate]}" 'BEGIN {
    printf "- loadgate costs %.2f× wrk per request; its system time alone is %.2f× wrk'"'"'s whole cost.\n", lt / wt, ls / wt
    printf "- wrk'"'"'s own system time is %.2f× its whole cost.\n", ws / wt
    printf "- a client making loadgate'"'"'s system calls (one write and one read per request) cannot cost less than their kernel time: %.2f× wrk'"'"'s cost.\n", ls / wt
  }'
fi
exit "$rc"
