#!/usr/bin/env bash
# Installs loadgate for the action (action.yml, step "Install loadgate"); can
# be run by hand with the variables below (.ci/action-test does).
#
#   LOADGATE_INSTALL       release (default): the release archive for this
#                          runner, its SHA-256 checked against checksums.txt,
#                          kept in the tool cache; source: go install
#   LOADGATE_VERSION       v1.2.3, 1.2.3 or latest; empty: ACTION_REF when it
#                          is a release tag (vX.Y.Z), else latest
#   LOADGATE_RELEASE_URL   where releases are (default
#                          https://github.com/loadgate/loadgate/releases):
#                          BASE/download/vX.Y.Z/FILE and BASE/latest/download/FILE;
#                          any URL curl reads, file:// included
#   ACTION_REF, ACTION_PATH, GITHUB_WORKSPACE, RUNNER_TOOL_CACHE, RUNNER_TEMP,
#   RUNNER_OS, RUNNER_ARCH, GITHUB_OUTPUT, GITHUB_PATH  as on a runner
#
# Outputs: bin (the binary), version (what it says it is), cache-hit.
# The binary's directory is added to GITHUB_PATH; nothing else is: the Go
# that `install: source` uses is never put on PATH for later steps.
set -euo pipefail

module=github.com/loadgate/loadgate/cmd/loadgate
releases=${LOADGATE_RELEASE_URL:-https://github.com/loadgate/loadgate/releases}
releases=${releases%/}
mode=${LOADGATE_INSTALL:-release}
want=${LOADGATE_VERSION:-}
temp=${RUNNER_TEMP:?RUNNER_TEMP is not set}

fail() {
  echo "::error title=loadgate install::$*" >&2
  exit 1
}

fetch() { # URL FILE
  curl -fsSL --retry 3 --retry-delay 2 -o "$2" "$1" || fail "could not download $1"
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

case "${RUNNER_OS:-$(uname -s)}" in
  Linux) os=linux ;;
  macOS | Darwin) os=darwin ;;
  *) fail "no loadgate release for ${RUNNER_OS:-$(uname -s)}: use a Linux or macOS runner" ;;
esac
# arch names the archive; cache_arch is the tool cache's name for it
# (@actions/tool-cache uses Node's os.arch()).
case "${RUNNER_ARCH:-$(uname -m)}" in
  X64 | x86_64 | amd64) arch=amd64 cache_arch=x64 ;;
  ARM64 | arm64 | aarch64) arch=arm64 cache_arch=arm64 ;;
  *) fail "no loadgate release for ${RUNNER_ARCH:-$(uname -m)}" ;;
esac

# install_release VERSION (without v): sets bin and cache_hit.
install_release() {
  local version=$1 archive dir marker work expected actual
  archive="loadgate_${version}_${os}_${arch}.tar.gz"
  # The layout @actions/tool-cache writes and finds: TOOL/VERSION/ARCH and
  # the marker TOOL/VERSION/ARCH.complete, written last.
  dir="${RUNNER_TOOL_CACHE:?RUNNER_TOOL_CACHE is not set}/loadgate/$version/$cache_arch"
  marker="$dir.complete"
  bin="$dir/loadgate"
  if [ -f "$marker" ] && [ -x "$bin" ]; then
    cache_hit=true
    echo "loadgate $version found in the tool cache: $dir"
    return
  fi
  cache_hit=false
  work=$(mktemp -d "$temp/loadgate-download.XXXXXX")
  fetch "$releases/download/v$version/checksums.txt" "$work/checksums.txt"
  echo "Downloading $releases/download/v$version/$archive"
  fetch "$releases/download/v$version/$archive" "$work/$archive"
  expected=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$work/checksums.txt")
  [ -n "$expected" ] || fail "checksums.txt of v$version lists no $archive"
  actual=$(sha256 "$work/$archive")
  [ "$actual" = "$expected" ] || fail "$archive: SHA-256 $actual, checksums.txt says $expected"
  echo "SHA-256 verified: $actual"
  rm -rf "$dir" "$marker"
  mkdir -p "$dir"
  tar -xzf "$work/$archive" -C "$dir"
  [ -x "$bin" ] || fail "$archive holds no loadgate binary"
  touch "$marker"
  rm -rf "$work"
}

# latest_version: the version of the latest release, read from the archive
# names in its checksums.txt (no API call, so no token or rate limit).
latest_version() {
  local sums version
  sums=$(mktemp "$temp/loadgate-latest.XXXXXX")
  curl -fsSL --retry 3 --retry-delay 2 -o "$sums" "$releases/latest/download/checksums.txt" ||
    fail "no latest release at $releases (set version: to a release tag, or install: source)"
  version=$(sed -n "s/^[0-9a-f]*  *\*\{0,1\}loadgate_\(.*\)_${os}_${arch}\.tar\.gz\$/\1/p" "$sums" | head -n 1)
  rm -f "$sums"
  [ -n "$version" ] || fail "the latest release has no archive for $os/$arch"
  echo "$version"
}

# go_for_source: a go command for `install: source`. The Go on PATH when
# there is one (GOTOOLCHAIN=auto, Go's default, fetches a newer toolchain
# into the module cache if loadgate needs one, without touching PATH); else
# a Go of its own under RUNNER_TEMP, which later steps never see.
go_for_source() {
  if command -v go >/dev/null 2>&1; then
    command -v go
    return
  fi
  local goversion root="$temp/loadgate-go"
  if [ ! -x "$root/go/bin/go" ]; then
    goversion=$(curl -fsSL 'https://go.dev/VERSION?m=text' | head -n 1) || fail "no Go on PATH and go.dev unreachable"
    mkdir -p "$root"
    fetch "https://go.dev/dl/$goversion.$os-$arch.tar.gz" "$root/go.tar.gz"
    tar -xzf "$root/go.tar.gz" -C "$root"
    rm -f "$root/go.tar.gz"
  fi
  echo "$root/go/bin/go"
}

install_source() {
  local go gobin action_dir workspace
  go=$(go_for_source)
  gobin="$temp/loadgate-bin"
  mkdir -p "$gobin"
  bin="$gobin/loadgate"
  cache_hit=false
  action_dir=$(cd "${ACTION_PATH:-.}" && pwd -P)
  workspace=""
  if [ -d "${GITHUB_WORKSPACE:-}" ]; then
    workspace=$(cd "$GITHUB_WORKSPACE" && pwd -P)
  fi
  # uses: ./ in this repository: build the checkout, so a pull request
  # tests its own loadgate.
  if [ -z "$want" ] && [ -n "$workspace" ] && [ -d "$action_dir/cmd/loadgate" ] &&
    case "$action_dir/" in "$workspace"/*) true ;; *) false ;; esac; then
    echo "Building loadgate from the checkout $action_dir with $go"
    (cd "$action_dir" && GOWORK=off GOFLAGS="" "$go" build -o "$bin" ./cmd/loadgate)
    return
  fi
  local ref=${want:-${ACTION_REF:-latest}}
  echo "go install $module@$ref (with $go, GOBIN=$gobin)"
  GOBIN="$gobin" GOWORK=off GOFLAGS='' "$go" install "$module@$ref"
}

case "$mode" in
  release)
    if [ -z "$want" ]; then
      case "${ACTION_REF:-}" in
        v[0-9]*.[0-9]*.[0-9]*) want=$ACTION_REF ;;
      esac
    fi
    case "$want" in
      "" | latest) version=$(latest_version) ;;
      *) version=${want#v} ;;
    esac
    install_release "$version"
    ;;
  source) install_source ;;
  *) fail "install: $mode: want release or source" ;;
esac

reported=$("$bin" version) || fail "$bin version failed"
reported=${reported#loadgate }
echo "Installed loadgate $reported: $bin"
dirname "$bin" >>"${GITHUB_PATH:-/dev/null}"
{
  echo "bin=$bin"
  echo "version=$reported"
  echo "cache-hit=$cache_hit"
} >>"${GITHUB_OUTPUT:-/dev/null}"
