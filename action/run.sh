#!/usr/bin/env bash
# Runs loadgate for the action (action.yml, step "Run loadgate") and records
# its verdict as outputs without failing, so that the upload and comment
# steps always run; the action's last step fails with the exit code.
#
#   BIN            the binary (install.sh's bin output)
#   SCENARIOS      files, directories or globs, separated by whitespace;
#                  globs reach loadgate unexpanded
#   OUT            output directory; empty: no files
#   BASELINE       a results.json or a directory of them; empty: none
#   BASELINE_HISTORY  a history store to judge against (history.sh fetch's
#                  baseline-history); empty: none
#   ARGS           more flags for loadgate run, split on whitespace
#
# Outputs: exit-code, passed, and the paths of results (results.json),
# summary (summary.md) and report (report.html) when this run wrote them.
set -uo pipefail
set -f # globs reach loadgate as written

temp=${RUNNER_TEMP:?RUNNER_TEMP is not set}
read -r -d '' -a paths <<<"${SCENARIOS:-}"
if [ "${#paths[@]}" -eq 0 ]; then
  echo "::error title=loadgate::no scenarios: set the scenarios input (or install-only: true to install loadgate without running it)"
  echo "exit-code=2" >>"${GITHUB_OUTPUT:-/dev/null}"
  echo "passed=false" >>"${GITHUB_OUTPUT:-/dev/null}"
  exit 0
fi
read -r -d '' -a extra <<<"${ARGS:-}"
cmd=("${BIN:-loadgate}" run --out "${OUT:-}")
if [ -n "${BASELINE:-}" ]; then
  cmd+=(--baseline "$BASELINE")
fi
if [ -n "${BASELINE_HISTORY:-}" ]; then
  cmd+=(--baseline-history "$BASELINE_HISTORY")
fi
cmd+=("${extra[@]}" -- "${paths[@]}")

# Files older than this run (a previous step's, a restored cache) are not
# reported as this run's.
started=$(mktemp "$temp/loadgate-started.XXXXXX")
if [ "${#paths[@]}" -eq 0 ]; then
  echo "::error title=loadgate::the scenarios input names no file, directory or glob"
  code=2
else
  echo "+ loadgate ${cmd[*]:1}"
  "${cmd[@]}"
  code=$?
fi

written() { # NAME: the path of OUT/NAME if this run wrote it
  if [ -n "${OUT:-}" ] && [ "$OUT/$1" -nt "$started" ]; then
    echo "$OUT/$1"
  fi
}
passed=false
if [ "$code" -eq 0 ]; then
  passed=true
fi
{
  echo "exit-code=$code"
  echo "passed=$passed"
  echo "results=$(written results.json)"
  echo "summary=$(written summary.md)"
  echo "report=$(written report.html)"
} >>"${GITHUB_OUTPUT:-/dev/null}"
rm -f "$started"
exit 0
