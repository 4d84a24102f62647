#!/usr/bin/env bash
# Fetches the baseline for a pull request (action.yml, step "Fetch the
# baseline", when the baseline-artifact input is set): the results.json
# that the latest successful push run of the same workflow on the base
# branch kept as the artifact BASELINE_ARTIFACT. Needs gh and a token with
# actions: read.
#
#   GH_TOKEN            the token gh uses
#   BASELINE_ARTIFACT   the artifact's name (what artifact-name was on main)
#   BASELINE_BRANCH     default: the repository's default branch
#   GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REPOSITORY,
#   GITHUB_WORKFLOW_REF, RUNNER_TEMP  as on a runner
#
# Output: baseline (the path of results.json), empty when there is none
# yet: no successful run on the branch, or its artifact expired. Then the
# regression rules are reported as skipped and the absolute thresholds
# still gate.
set -euo pipefail

out() { echo "baseline=$1" >>"${GITHUB_OUTPUT:-/dev/null}"; }

case "${GITHUB_EVENT_NAME:-}" in
  pull_request | pull_request_target) ;;
  *)
    echo "baseline: not a pull request (${GITHUB_EVENT_NAME:-no event}); this run is judged without one"
    out ""
    exit 0
    ;;
esac
repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set}
branch=${BASELINE_BRANCH:-}
if [ -z "$branch" ]; then
  branch=$(jq -r '.repository.default_branch // "main"' "${GITHUB_EVENT_PATH:?GITHUB_EVENT_PATH is not set}")
fi
workflow=${GITHUB_WORKFLOW_REF:?GITHUB_WORKFLOW_REF is not set} # owner/repo/.github/workflows/perf.yml@refs/...
workflow=${workflow%@*}
workflow=${workflow##*/}

run_id=$(gh run list --repo "$repo" --workflow "$workflow" --branch "$branch" --event push \
  --status success --limit 1 --json databaseId --jq '.[0].databaseId // empty') || {
  echo "::warning title=loadgate baseline::could not list the runs of $workflow on $branch (the job's token needs actions: read); no baseline"
  out ""
  exit 0
}
if [ -z "$run_id" ]; then
  echo "::notice title=loadgate baseline::no successful push run of $workflow on $branch yet; regression rules are skipped"
  out ""
  exit 0
fi

dir="${RUNNER_TEMP:?RUNNER_TEMP is not set}/loadgate-baseline"
rm -rf "$dir"
mkdir -p "$dir"
if ! gh run download "$run_id" --repo "$repo" --name "${BASELINE_ARTIFACT:?BASELINE_ARTIFACT is not set}" --dir "$dir"; then
  echo "::notice title=loadgate baseline::run $run_id on $branch has no artifact $BASELINE_ARTIFACT (expired?); regression rules are skipped"
  out ""
  exit 0
fi
if [ ! -f "$dir/results.json" ]; then
  echo "::warning title=loadgate baseline::artifact $BASELINE_ARTIFACT of run $run_id holds no results.json"
  out ""
  exit 0
fi
echo "Baseline: results.json of run $run_id on $branch"
out "$dir/results.json"
