#!/usr/bin/env bash
# Keeps main's run history on a git branch of the repository (action.yml,
# steps "Fetch the history" and "Record the history", when the
# history-branch input is set). docs/history.md describes the store.
#
#   action/history.sh fetch    before the run: the branch's files into a
#                              directory of their own; on any ref but main,
#                              the store to judge against
#   action/history.sh record   after the run: on a push to main, add its
#                              results and push them; on every ref, draw
#                              history.html into OUT
#
# The branch is read and written through the git repository of the working
# directory (the workspace's checkout: its origin and the credentials
# actions/checkout keeps), with an index and a work tree of its own under
# RUNNER_TEMP, so the checkout itself is never touched.
#
# fetch:
#   HISTORY_BRANCH     the branch that holds the history
#   HISTORY_DIR        the store's path inside the branch; empty: its root
#   BASELINE, BASELINE_ARTIFACT   the inputs of that name: either one with
#                      history-branch is an error (a run is judged against
#                      one baseline)
#   BASELINE_BRANCH    main's name; empty: the repository's default branch
#   GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REF, RUNNER_TEMP
#   Outputs: worktree, store, dir (the store inside the branch, cleaned;
#   empty for the root), tip (the commit read; empty for a branch not
#   there yet), mode ("write" on a push to main, else "read"), and
#   baseline-history (the store, on a ref other than main when it holds runs)
#
# record:
#   BIN                the binary; RESULTS this run's results.json (may be
#                      empty); OUT the output directory (may be empty)
#   HISTORY_BRANCH     as for fetch
#   HISTORY_WORKTREE, HISTORY_STORE, HISTORY_DIR, HISTORY_TIP, HISTORY_MODE
#                      fetch's outputs worktree, store, dir, tip and mode
#   Outputs: history-runs (runs of this run's scenarios the store holds, one
#   per run and scenario) and history (the path of history.html, or empty)
#
# Nothing here fails the job over the history alone: a run the history
# refuses (interrupted, aborted, invalid), a push without permission or one
# rejected five times is a warning, and the verdict stays loadgate's.
set -euo pipefail

bot_name='github-actions[bot]'
bot_email='41898282+github-actions[bot]@users.noreply.github.com'
readme='This branch holds the loadgate action'"'"'s history of main'"'"'s runs: one file per run and scenario, never rewritten. Read it with: loadgate history show --store DIR'

out() { echo "$1=$2" >>"${GITHUB_OUTPUT:-/dev/null}"; }

# escape: a message as one workflow command's data (%, CR and LF encoded).
escape() {
  local s=$1
  s=${s//'%'/'%25'}
  s=${s//$'\r'/'%0D'}
  s=${s//$'\n'/'%0A'}
  printf '%s' "$s"
}
warn() { echo "::warning title=loadgate history::$(escape "$1")"; }

# g runs git on the history's own work tree and index, with the
# repository of the working directory. Sparse checkout and hooks of the
# checkout do not apply to the history branch.
g() {
  GIT_INDEX_FILE="${index:?}" git -C "${worktree:?}" --git-dir="${gitdir:?}" --work-tree="$worktree" \
    -c core.sparseCheckout=false "$@"
}

# fetch_tip prints the branch's tip after fetching it; nothing when the
# branch does not exist yet. It fails when the remote cannot be read.
fetch_tip() {
  local code=0
  g ls-remote --exit-code --heads origin "refs/heads/$branch" >/dev/null || code=$?
  case $code in
    0) ;;
    2) return 0 ;; # no such branch: an empty history
    *) return 1 ;;
  esac
  g fetch --quiet --no-tags --depth=1 origin "refs/heads/$branch" || return 1
  g rev-parse --verify FETCH_HEAD
}

# store_runs DIR [RESULTS]: the entries in DIR, only those of RESULTS'
# scenarios when it is given. Entries name their scenario, so this does not
# depend on how scenario names become directory names.
store_runs() {
  local dir=$1 results=${2:-}
  [ -d "$dir" ] || { echo 0; return; }
  if [ -z "$results" ] || [ ! -f "$results" ]; then
    find "$dir" -mindepth 2 -maxdepth 2 -type f -name '*.json' | wc -l | tr -d ' '
    return
  fi
  local names
  names=$(jq -r '.scenarios[].name' "$results")
  find "$dir" -mindepth 2 -maxdepth 2 -type f -name '*.json' -exec jq -r '.scenario // empty' {} + |
    grep -Fxc -f <(printf '%s\n' "$names") || true
}

setup() {
  branch=${HISTORY_BRANCH:?HISTORY_BRANCH is not set}
  gitdir=$(git rev-parse --absolute-git-dir 2>/dev/null) || {
    echo "::error title=loadgate history::history-branch needs a checkout of the repository in the working directory (actions/checkout before this step)"
    exit 1
  }
  temp=${RUNNER_TEMP:?RUNNER_TEMP is not set}
  worktree=${HISTORY_WORKTREE:-$temp/loadgate-history}
  index=$temp/loadgate-history.index
}

cmd_fetch() {
  if [ -n "${BASELINE:-}" ] || [ -n "${BASELINE_ARTIFACT:-}" ]; then
    echo "::error title=loadgate history::history-branch and baseline (or baseline-artifact) are exclusive: a run is judged against main's history or against one baseline; leave one of them empty"
    exit 1
  fi
  local hdir=${HISTORY_DIR:-}
  hdir=${hdir#./}
  hdir=${hdir%/}
  case "$hdir" in
    /* | .. | ../* | */.. | */../*)
      echo "::error title=loadgate history::history-dir \"$hdir\" must be a relative path inside the branch, without .."
      exit 1
      ;;
  esac
  [ "$hdir" != . ] || hdir=""
  setup
  rm -rf "$worktree" "$index"
  mkdir -p "$worktree"

  local main=${BASELINE_BRANCH:-} mode="read"
  if [ -z "$main" ]; then
    main=$(jq -r '.repository.default_branch // empty' "${GITHUB_EVENT_PATH:-/dev/null}" 2>/dev/null || true)
  fi
  main=${main:-main}
  if [ "${GITHUB_EVENT_NAME:-}" = push ] && [ "${GITHUB_REF:-}" = "refs/heads/$main" ]; then
    mode="write"
  fi

  local tip
  if ! tip=$(fetch_tip); then
    warn "could not read the branch $branch of origin; this run is judged without main's history and adds nothing to it"
    out mode off
    return 0
  fi
  if [ -n "$tip" ]; then
    g read-tree --reset -u "$tip"
  else
    g read-tree --empty
  fi
  local store=$worktree${hdir:+/$hdir}
  mkdir -p "$store"
  local runs
  runs=$(store_runs "$store")
  if [ -n "$tip" ]; then
    echo "History: $runs run(s) in $branch${hdir:+:$hdir} at ${tip:0:12}"
  else
    echo "History: the branch $branch does not exist yet; it is created by the first push to $main"
  fi
  out worktree "$worktree"
  out store "$store"
  out dir "$hdir"
  out tip "$tip"
  out mode "$mode"

  if [ "$mode" = write ]; then
    echo "History: a push to $main: this run is added to $branch after it"
    return 0
  fi
  local why="not a push to $main"
  if [ "$(jq -r '.pull_request.head.repo.fork // false' "${GITHUB_EVENT_PATH:-/dev/null}" 2>/dev/null)" = true ]; then
    why="a fork's pull request"
  fi
  echo "History: read only ($why): nothing is pushed to $branch"
  if [ "${GITHUB_REF:-}" = "refs/heads/$main" ]; then
    return 0 # main is not judged against its own history
  fi
  if [ "$runs" -gt 0 ]; then
    out baseline-history "$store"
  else
    echo "::notice title=loadgate history::no run of $main in $branch yet; regression rules are skipped"
  fi
}

# commit_on TIP FILE...: a commit of TIP's tree with FILEs (relative to the
# work tree) added; on no TIP, a first commit that also holds a README.
commit_on() {
  local tip=$1 parent=()
  shift
  if [ -n "$tip" ]; then
    g read-tree "$tip"
    parent=(-p "$tip")
  else
    g read-tree --empty
    local blob
    blob=$(printf '%s\n' "$readme" | g hash-object -w --stdin)
    g update-index --add --cacheinfo "100644,$blob,README.md"
  fi
  g add --force -- "$@"
  local tree short=${GITHUB_SHA:-}
  tree=$(g write-tree)
  short=${short:0:12}
  printf 'loadgate history: %s of %s\n\n%s\n' "$(jq -r '[.scenarios[].name] | join(", ")' "${RESULTS:?}")" \
    "${short:-a run}" "${GITHUB_SERVER_URL:-}${GITHUB_RUN_ID:+/${GITHUB_REPOSITORY:-}/actions/runs/$GITHUB_RUN_ID}" |
    GIT_AUTHOR_NAME=$bot_name GIT_AUTHOR_EMAIL=$bot_email GIT_COMMITTER_NAME=$bot_name GIT_COMMITTER_EMAIL=$bot_email \
      g commit-tree "$tree" "${parent[@]}"
}

# push FILE...: commits the new entries on the branch and pushes them. A
# push rejected because the branch moved (another job added its run) is
# tried again on the new tip: entries are new files, so they never conflict.
push() {
  local tip=${HISTORY_TIP:-} attempt=1 commit err=$temp/loadgate-history-push.err
  while :; do
    commit=$(commit_on "$tip" "$@")
    if g push --quiet --no-verify origin "$commit:refs/heads/$branch" 2>"$err"; then
      echo "History: added $# file(s) to $branch in ${commit:0:12} (attempt $attempt)"
      return 0
    fi
    if ! grep -qE 'fetch first|non-fast-forward|stale info|cannot lock ref|incorrect old value' "$err"; then
      warn "could not push to $branch (a push to main needs permissions: contents: write): $(tail -n 5 "$err")"
      return 0
    fi
    if [ "$attempt" -ge 5 ]; then
      warn "gave up after $attempt pushes to $branch, each rejected because the branch had moved; this run is not in the history"
      return 0
    fi
    echo "History: $branch moved since it was read (push $attempt rejected); adding to its new tip"
    sleep "$attempt" # other jobs' pushes are seconds apart
    # Back to the tree the work tree holds, then to the new tip with the
    # work tree following it; the new entries, untracked, stay.
    if [ -n "$tip" ]; then g read-tree "$tip"; else g read-tree --empty; fi
    tip=$(fetch_tip) || { warn "could not fetch $branch again; this run is not in the history"; return 0; }
    if [ -n "$tip" ]; then g read-tree --reset -u "$tip"; else g read-tree --empty; fi
    attempt=$((attempt + 1))
  done
}

cmd_record() {
  local mode=${HISTORY_MODE:-}
  [ "$mode" = write ] || [ "$mode" = read ] || return 0 # the fetch found no history to work on
  setup
  local store=${HISTORY_STORE:?HISTORY_STORE is not set} results=${RESULTS:-}
  if [ "$mode" = write ]; then
    if [ -z "$results" ] || [ ! -f "$results" ]; then
      echo "::notice title=loadgate history::this run wrote no results.json; nothing is added to $branch"
    else
      local added code=0 reason=$temp/loadgate-history-add.err abs=$results
      [ "${abs#/}" != "$abs" ] || abs=$PWD/$abs
      # Added from the work tree, so that the paths it prints are the ones
      # git adds; GIT_DIR lets it find the commit's parent in the checkout.
      added=$(cd "$worktree" && GIT_DIR=$gitdir "${BIN:-loadgate}" history add "$abs" \
        --store "${HISTORY_DIR:-.}" 2>"$reason") || code=$?
      case $code in
        0)
          local files=() f
          while IFS= read -r f; do
            [ -n "$f" ] && files+=("$f")
          done <<<"$added"
          push "${files[@]}"
          ;;
        3) warn "this run is not added to the history: $(sed 's/^loadgate: //' "$reason")" ;;
        *) warn "history add failed (exit $code): $(cat "$reason")" ;;
      esac
    fi
  fi

  local runs html=""
  runs=$(store_runs "$store" "$results")
  if [ -n "${OUT:-}" ] && [ "$(store_runs "$store")" -gt 0 ]; then
    mkdir -p "$OUT"
    echo "::group::loadgate history show"
    if "${BIN:-loadgate}" history show --store "$store" --html "$OUT/history.html"; then
      html=$OUT/history.html
    else
      warn "history show failed; no history.html"
    fi
    echo "::endgroup::"
  fi
  out history-runs "$runs"
  out history "$html"
}

case "${1:-}" in
  fetch) cmd_fetch ;;
  record) cmd_record ;;
  *)
    echo "usage: action/history.sh fetch|record" >&2
    exit 2
    ;;
esac
