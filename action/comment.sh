#!/usr/bin/env bash
# Keeps one sticky pull-request comment with loadgate's summary (action.yml,
# step "Comment on the pull request"). A hidden marker finds the comment a
# previous run of the same step left: it is edited in place, never posted
# twice. Needs gh and jq (both on GitHub-hosted runners) and a token with
# pull-requests: write.
#
#   GH_TOKEN           the token gh uses
#   SUMMARY            summary.md of this run (run.sh's summary output)
#   COMMENT_KEY        what tells this step's comment from another loadgate
#                      step's in the same pull request; default: workflow,
#                      job, artifact name and scenarios
#   ARTIFACT_NAME, SCENARIOS  for the default key
#   GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_SERVER_URL,
#   GITHUB_RUN_ID, GITHUB_WORKFLOW, GITHUB_JOB  as on a runner
#
# Output: comment-url. A comment that cannot be written (a fork's read-only
# token) is a warning: the verdict is the exit code, not the comment.
set -euo pipefail

# GitHub refuses a comment body over 65536 characters; the summary is cut
# below that, in bytes, which are never fewer than characters.
limit=${COMMENT_LIMIT:-60000}

case "${GITHUB_EVENT_NAME:-}" in
  pull_request | pull_request_target) ;;
  *)
    echo "comment: not a pull request (${GITHUB_EVENT_NAME:-no event}); no comment"
    exit 0
    ;;
esac
pr=$(jq -r '.pull_request.number // .number // empty' "${GITHUB_EVENT_PATH:?GITHUB_EVENT_PATH is not set}")
if [ -z "$pr" ]; then
  echo "::warning title=loadgate comment::no pull request number in $GITHUB_EVENT_PATH"
  exit 0
fi
if [ -z "${SUMMARY:-}" ] || [ ! -f "$SUMMARY" ]; then
  echo "::warning title=loadgate comment::no summary.md from this run (out empty, or the run wrote nothing); no comment"
  exit 0
fi
repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set}

key=${COMMENT_KEY:-}
if [ -z "$key" ]; then
  scenarios_hash=$(printf '%s' "${SCENARIOS:-}" | cksum | cut -d' ' -f1)
  key="${GITHUB_WORKFLOW:-}/${GITHUB_JOB:-}/${ARTIFACT_NAME:-}/$scenarios_hash"
fi
# Only characters that cannot end the HTML comment or break the search.
key=$(printf '%s' "$key" | tr -c 'A-Za-z0-9._/-' '_')
marker="<!-- loadgate:$key -->"

work=$(mktemp -d "${RUNNER_TEMP:-/tmp}/loadgate-comment.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The body: marker, summary (cut at a line break below the limit, with an
# open code fence closed so the note after it is not swallowed), a link to
# the run.
{
  echo "$marker"
  size=$(wc -c <"$SUMMARY")
  if [ "$size" -le "$limit" ]; then
    cat "$SUMMARY"
  else
    head -c "$limit" "$SUMMARY" | sed '$d' >"$work/cut.md"
    cat "$work/cut.md"
    if [ $(($(grep -c '^ *```' "$work/cut.md" || true) % 2)) -eq 1 ]; then
      echo '```'
    fi
    echo
    echo "_The summary was cut at $limit of its $size bytes; the whole of it is summary.md in the run's artifact._"
  fi
  if [ -n "${GITHUB_RUN_ID:-}" ]; then
    echo
    echo "<sub>[loadgate run](${GITHUB_SERVER_URL:-https://github.com}/$repo/actions/runs/$GITHUB_RUN_ID)</sub>"
  fi
} >"$work/body.md"
jq -n --rawfile body "$work/body.md" '{body: $body}' >"$work/body.json"

warn() {
  echo "::warning title=loadgate comment::$1 (the job's token needs pull-requests: write; a fork's pull request gets a read-only one): $(tr '\n' ' ' <"$work/err")"
  exit 0
}

# --paginate prints one JSON array per page; jq reads them one after another.
gh api --paginate "repos/$repo/issues/$pr/comments?per_page=100" >"$work/comments.json" 2>"$work/err" ||
  warn "could not list the comments of #$pr"
id=$(jq -r --arg m "$marker" '.[] | select(.body | contains($m)) | .id' "$work/comments.json" | head -n 1)

if [ -n "$id" ]; then
  gh api --method PATCH "repos/$repo/issues/comments/$id" --input "$work/body.json" >"$work/reply.json" 2>"$work/err" ||
    warn "could not edit comment $id on #$pr"
  echo "Edited the loadgate comment on #$pr"
else
  gh api --method POST "repos/$repo/issues/$pr/comments" --input "$work/body.json" >"$work/reply.json" 2>"$work/err" ||
    warn "could not comment on #$pr"
  echo "Commented on #$pr"
fi
url=$(jq -r '.html_url // empty' "$work/reply.json")
echo "$url"
echo "comment-url=$url" >>"${GITHUB_OUTPUT:-/dev/null}"
