#!/usr/bin/env bash
# The shell half of the vatcar-site GitHub Action (action.yml at the repository root calls it;
# tests/action/rehearse.sh runs the very same script against a fake release on 127.0.0.1).
#
#   action.sh resolve   which release asset this runner needs, and where it is cached
#                       (to GITHUB_OUTPUT: version, target, asset, dir, key)
#   action.sh install   the asset from the cache or downloaded, checked either way against
#                       the release's SHA256SUMS (fetched on every run); its folder is added
#                       to GITHUB_PATH
#   action.sh run       vatcar-site with the words of VATCAR_SITE_ARGS
#
# Environment: the runner's RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, RUNNER_TOOL_CACHE,
# GITHUB_OUTPUT, GITHUB_PATH; from action.yml INPUT_VERSION, ACTION_REPOSITORY, ACTION_REF,
# ACTION_PATH and VATCAR_SITE_ARGS. VATCAR_SITE_RELEASES_URL replaces the GitHub release
# address, and only by one on 127.0.0.1: it exists for the rehearsal.
set -euo pipefail

fail() {
  echo "::error title=vatcar-site action::$*" >&2
  exit 1
}

# Release tags are v<semver>; assets are named without the v.
version_pattern='^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$'

resolve_version() {
  local version=${INPUT_VERSION-}
  if [ -z "$version" ]; then
    local ref=${ACTION_REF-} repository=${ACTION_REPOSITORY-}
    # github.action_ref is not promised inside composite actions (actions/runner#2473); the
    # runner checks an action out at _actions/OWNER/REPO/REF, which names the same ref.
    if [ -z "$ref" ] && [ -n "${ACTION_PATH-}" ]; then
      ref=$(basename "$ACTION_PATH")
    fi
    if ! [[ $ref =~ $version_pattern ]]; then
      fail "no version: the action is used at '${ref:-an unknown ref}'${repository:+ of $repository}, which is not a release tag such as v1.2.3. Use it at a release tag (uses: OWNER/vatcar-site@v1.2.3), or give the input version: 1.2.3"
    fi
    version=$ref
  fi
  if ! [[ $version =~ $version_pattern ]]; then
    fail "version '$version' is not a release version such as 1.2.3"
  fi
  echo "${version#v}"
}

resolve_repository() {
  local repository=${ACTION_REPOSITORY-}
  if [ -z "$repository" ] && [ -n "${ACTION_PATH-}" ]; then
    local owner_dir
    owner_dir=$(dirname "$(dirname "$ACTION_PATH")")
    if [ "$(basename "$(dirname "$owner_dir")")" = _actions ]; then
      repository="$(basename "$owner_dir")/$(basename "$(dirname "$ACTION_PATH")")"
    fi
  fi
  # `uses: ./` in vatcar-site's own repository leaves both empty.
  repository=${repository:-${GITHUB_REPOSITORY-}}
  [ -n "$repository" ] || fail "cannot tell which repository publishes the releases"
  echo "$repository"
}

resolve_target() {
  case "${RUNNER_OS-}/${RUNNER_ARCH-}" in
    Linux/X64) echo x86_64-unknown-linux-gnu ;;
    Linux/ARM64) echo aarch64-unknown-linux-gnu ;;
    macOS/X64) echo x86_64-apple-darwin ;;
    macOS/ARM64) echo aarch64-apple-darwin ;;
    Windows/X64) echo x86_64-pc-windows-msvc ;;
    *) fail "no vatcar-site release for runners of ${RUNNER_OS:-unknown OS} on ${RUNNER_ARCH:-unknown architecture}" ;;
  esac
}

releases_url() {
  local repository=$1 version=$2
  if [ -n "${VATCAR_SITE_RELEASES_URL-}" ]; then
    echo "${VATCAR_SITE_RELEASES_URL%/}/v$version"
  else
    echo "https://github.com/$repository/releases/download/v$version"
  fi
}

sha256() {
  if command -v sha256sum >/dev/null; then
    sha256sum -- "$1" | cut -d ' ' -f 1
  else
    shasum -a 256 -- "$1" | cut -d ' ' -f 1
  fi
}

download() {
  local url=$1 to=$2 protocols='=https'
  [ -z "${VATCAR_SITE_RELEASES_URL-}" ] || protocols='=http'
  curl --fail --silent --show-error --location --proto "$protocols" --proto-redir "$protocols" \
    --retry 3 --connect-timeout 20 --max-time 300 --output "$to" -- "$url"
}

# Resolved once per call; the same inputs give the same answers in every step.
setup() {
  if [ -n "${VATCAR_SITE_RELEASES_URL-}" ] &&
    ! [[ $VATCAR_SITE_RELEASES_URL =~ ^http://127\.0\.0\.1:[0-9]+(/|$) ]]; then
    fail "VATCAR_SITE_RELEASES_URL may only name a server on 127.0.0.1 (it is for tests)"
  fi
  version=$(resolve_version)
  repository=$(resolve_repository)
  target=$(resolve_target)
  case "$target" in
    *-windows-*) asset="vatcar-site-$version-$target.zip" exe=vatcar-site.exe ;;
    *) asset="vatcar-site-$version-$target.tar.gz" exe=vatcar-site ;;
  esac
  local cache_root=${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:?RUNNER_TEMP is not set}}
  dir="$cache_root/vatcar-site/$version/$target"
  key="vatcar-site-$version-$target"
}

cmd_resolve() {
  setup
  {
    echo "version=$version"
    echo "target=$target"
    echo "asset=$asset"
    echo "dir=$dir"
    echo "key=$key"
  } >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
}

extract() {
  local archive=$1 into=$2
  case "$archive" in
    *.zip)
      if command -v unzip >/dev/null; then
        unzip -q -o "$archive" -d "$into"
      else
        # Windows runners' Git Bash may lack unzip; PowerShell has it built in.
        powershell -NoProfile -NonInteractive -Command \
          "Expand-Archive -LiteralPath '$archive' -DestinationPath '$into' -Force"
      fi
      ;;
    *) tar -xzf "$archive" -C "$into" ;;
  esac
}

native_path() {
  if command -v cygpath >/dev/null; then cygpath -w "$1"; else echo "$1"; fi
}

cmd_install() {
  setup
  local url expected actual
  url=$(releases_url "$repository" "$version")
  tmp=$(mktemp -d "${RUNNER_TEMP:-/tmp}/vatcar-site.XXXXXX")
  # Whatever happens, nothing half-downloaded stays behind.
  trap 'rm -rf "$tmp"' EXIT
  # The checksum comes from the release on every run, a cache hit included, and never from the
  # cache: whoever can write the cache entry (any job of the repository that restores or saves
  # caches) could replace an archive and a checksum stored beside it alike, and this step runs
  # the binary where the API key is.
  download "$url/SHA256SUMS" "$tmp/SHA256SUMS" || fail "cannot download $url/SHA256SUMS"
  # Lines are "<sha256>  <file name>"; the name must match exactly.
  expected=$(awk -v name="$asset" '$2 == name || $2 == "*" name { print $1 }' "$tmp/SHA256SUMS")
  [[ $expected =~ ^[0-9a-f]{64}$ ]] || fail "the release's SHA256SUMS has no checksum for $asset"
  # The cache (actions/cache, keyed by version and target) keeps the archive alone.
  if [ -f "$dir/$asset" ]; then
    echo "vatcar-site $version ($target): cache hit in $dir"
    actual=$(sha256 "$dir/$asset")
    if [ "$actual" != "$expected" ]; then
      fail "the cached $asset is not the release's: SHA256SUMS says $expected, the cache holds $actual; nothing was run. The cache entry $key was changed or damaged: delete it (Actions > Caches) and run again"
    fi
  else
    echo "vatcar-site $version ($target): downloading $url/$asset"
    download "$url/$asset" "$tmp/$asset" || fail "cannot download $url/$asset"
    actual=$(sha256 "$tmp/$asset")
    if [ "$actual" != "$expected" ]; then
      fail "checksum mismatch for $asset: SHA256SUMS says $expected, the download is $actual; nothing was installed"
    fi
    mkdir -p "$dir"
    mv "$tmp/$asset" "$dir/$asset"
  fi

  local bin="${RUNNER_TEMP:?RUNNER_TEMP is not set}/vatcar-site-$version-$target"
  rm -rf "$bin"
  mkdir -p "$bin"
  extract "$dir/$asset" "$bin"
  bin="$bin/vatcar-site-$version-$target"
  [ -f "$bin/$exe" ] || fail "$asset holds no vatcar-site-$version-$target/$exe"
  chmod +x "$bin/$exe"
  native_path "$bin" >>"${GITHUB_PATH:?GITHUB_PATH is not set}"
  echo "vatcar-site $version ($target) is on PATH: $bin"
}

cmd_run() {
  local split word words=()
  # xargs splits the way a shell does for quotes and backslashes, and expands nothing: args
  # may hold a site title with spaces, and must never run what an expression put into it.
  # (Bash 3.2, macOS's, has no mapfile.) The words are not echoed: they may hold a key.
  if [ -n "${VATCAR_SITE_ARGS//[[:space:]]/}" ]; then
    split=$(printf '%s\n' "$VATCAR_SITE_ARGS" | xargs printf '%s\n') ||
      fail "args: a quote is not closed"
    while IFS= read -r word; do words+=("$word"); done <<<"$split"
  fi
  vatcar-site ${words[@]+"${words[@]}"}
}

case "${1-}" in
  resolve) cmd_resolve ;;
  install) cmd_install ;;
  run) cmd_run ;;
  *) fail "usage: action.sh resolve|install|run" ;;
esac
