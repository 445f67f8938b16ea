#!/usr/bin/env bash
# Rehearses the shell steps of the GitHub Action (action.yml → scripts/action/action.sh)
# against a fake release served on 127.0.0.1, with the runner's variables set as GitHub sets
# them: resolving the version and the runner's asset, download and checksum, refusal of a
# mismatch, the cache (checked against the release's SHA256SUMS, so a poisoned entry is
# refused), PATH, and running with args.
#
#   tests/action/rehearse.sh [ARCHIVE]
#
# ARCHIVE, a real Linux x86_64 archive from scripts/dist.sh, becomes that target's asset, so the
# last case runs the real binary through the action; without it every asset holds a stand-in.
set -euo pipefail
real_archive=${1:+$(cd "$(dirname "$1")" && pwd)/$(basename "$1")}
cd "$(dirname "$0")/../.."
root=$(pwd)
action="$root/scripts/action/action.sh"

work=$(mktemp -d)
server_pid=
cleanup() {
  [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

passed=0
failed=0
check() { # description, then a command that must succeed
  local what=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
    echo "ok: $what"
  else
    failed=$((failed + 1))
    echo "FAILED: $what"
  fi
}

sha256() { sha256sum -- "$1" | cut -d ' ' -f 1; }

# --- the fake release: every target's asset for v1.2.3, plus broken releases --------------
version=1.2.3
release="$work/releases"
mkdir -p "$release/v$version"
targets=(x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-apple-darwin
  aarch64-apple-darwin x86_64-pc-windows-msvc)
for target in "${targets[@]}"; do
  name="vatcar-site-$version-$target"
  mkdir -p "$work/stage/$name"
  exe=vatcar-site
  [[ $target == *windows* ]] && exe=vatcar-site.exe
  # The stand-in prints its target and the words it was given, one a line.
  # shellcheck disable=SC2016 # the stand-in's own "$@", not this script's
  printf '#!/bin/sh\necho "stand-in %s"\nfor a in "$@"; do echo "arg:$a"; done\n' "$target" \
    >"$work/stage/$name/$exe"
  chmod +x "$work/stage/$name/$exe"
  if [[ $target == *windows* ]]; then
    (cd "$work/stage" && python3 -m zipfile -c "$release/v$version/$name.zip" "$name")
  else
    tar -C "$work/stage" -czf "$release/v$version/$name.tar.gz" "$name"
  fi
done
if [ -n "$real_archive" ]; then
  cp "$real_archive" "$release/v$version/vatcar-site-$version-x86_64-unknown-linux-gnu.tar.gz"
  # The archive names its own version; the rehearsal serves it as 1.2.3's.
  real_name=$(basename "$real_archive" .tar.gz)
  rm -rf "$work/real" && mkdir -p "$work/real"
  tar -C "$work/real" -xzf "$real_archive"
  mv "$work/real/$real_name" "$work/real/vatcar-site-$version-x86_64-unknown-linux-gnu"
  tar -C "$work/real" -czf "$release/v$version/vatcar-site-$version-x86_64-unknown-linux-gnu.tar.gz" \
    "vatcar-site-$version-x86_64-unknown-linux-gnu"
fi
(cd "$release/v$version" && sha256sum -- vatcar-site-* >SHA256SUMS)

# 6.6.6: the asset's bytes are not the ones SHA256SUMS names (a tampered or broken upload).
mkdir -p "$release/v6.6.6"
cp "$release/v$version/vatcar-site-$version-x86_64-unknown-linux-gnu.tar.gz" \
  "$release/v6.6.6/vatcar-site-6.6.6-x86_64-unknown-linux-gnu.tar.gz"
echo "$(printf '0%.0s' {1..64})  vatcar-site-6.6.6-x86_64-unknown-linux-gnu.tar.gz" \
  >"$release/v6.6.6/SHA256SUMS"
# 7.7.7: SHA256SUMS lists another file of a similar name only.
mkdir -p "$release/v7.7.7"
cp "$release/v$version/vatcar-site-$version-x86_64-unknown-linux-gnu.tar.gz" \
  "$release/v7.7.7/vatcar-site-7.7.7-x86_64-unknown-linux-gnu.tar.gz"
echo "$(sha256 "$release/v7.7.7/vatcar-site-7.7.7-x86_64-unknown-linux-gnu.tar.gz")  x-vatcar-site-7.7.7-x86_64-unknown-linux-gnu.tar.gz" \
  >"$release/v7.7.7/SHA256SUMS"

# --- the server: a static folder on 127.0.0.1 that logs each request path -------------------
python3 - "$release" "$work/port" "$work/requests" <<'EOF' &
import functools, http.server, sys
folder, port_file, log_file = sys.argv[1:4]
class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass
    def do_GET(self):
        with open(log_file, "a") as log:
            log.write(self.path + "\n")
        super().do_GET()
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                         functools.partial(Handler, directory=folder))
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os; os.rename(port_file + ".tmp", port_file)
server.serve_forever()
EOF
server_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
: >"$work/requests"

# --- one runner: its variables, fresh files, and the action's steps ------------------------
runner() { # name, RUNNER_OS, RUNNER_ARCH: a fresh runner with its own temp; the cache is shared
  local name=$1
  R="$work/runner-$name"
  rm -rf "$R"
  mkdir -p "$R/temp" "$R/work"
  : >"$R/github_output"
  : >"$R/github_path"
  export RUNNER_OS=$2 RUNNER_ARCH=$3 RUNNER_TEMP="$R/temp" RUNNER_TOOL_CACHE="$work/toolcache"
  export GITHUB_OUTPUT="$R/github_output" GITHUB_PATH="$R/github_path"
  export VATCAR_SITE_RELEASES_URL="http://127.0.0.1:$port/"
  export ACTION_REPOSITORY=someone/vatcar-site ACTION_REF=v$version
  export ACTION_PATH="$work/_actions/someone/vatcar-site/v$version"
  unset INPUT_VERSION VATCAR_SITE_ARGS
}
step() { bash "$action" "$@" >"$R/log" 2>&1; }
requests() { wc -l <"$work/requests"; }
output_of() { sed -n "s/^$1=//p" "$GITHUB_OUTPUT" | tail -n 1; }
on_path() { # the PATH a later step sees: GITHUB_PATH's folders first
  local extra
  extra=$(paste -sd : "$GITHUB_PATH")
  PATH="$extra:$PATH" "$@"
}
logged() { grep -q -- "$1" "$R/log"; }
fails() { ! "$@"; }

# A first run downloads, verifies and puts vatcar-site on PATH.
runner first Linux X64
step resolve
check "resolve: the tag the action is used at is the version" test "$(output_of version)" = $version
check "resolve: Linux X64 is x86_64-unknown-linux-gnu" \
  test "$(output_of asset)" = "vatcar-site-$version-x86_64-unknown-linux-gnu.tar.gz"
check "resolve: the cache key names version and target" \
  test "$(output_of key)" = "vatcar-site-$version-x86_64-unknown-linux-gnu"
cache_dir=$(output_of dir)
check "resolve: the cache folder is in the runner's tool cache" \
  test "$cache_dir" = "$work/toolcache/vatcar-site/$version/x86_64-unknown-linux-gnu"
check "install: a first run succeeds" step install
check "install: it downloaded SHA256SUMS and the asset" test "$(requests)" -eq 2
check "install: the verified archive is cached" \
  test -f "$cache_dir/vatcar-site-$version-x86_64-unknown-linux-gnu.tar.gz"
check "install: vatcar-site is on the PATH of later steps" \
  test "$(on_path sh -c 'command -v vatcar-site')" = \
  "$RUNNER_TEMP/vatcar-site-$version-x86_64-unknown-linux-gnu/vatcar-site-$version-x86_64-unknown-linux-gnu/vatcar-site"

# A second runner with the cache restored downloads only the release's SHA256SUMS, which the
# cached archive is checked against.
runner second Linux X64
before=$(requests)
check "cache: a second run succeeds" step install
check "cache: it says cache hit" logged "cache hit"
check "cache: it downloaded SHA256SUMS only" test "$(requests)" -eq $((before + 1)) -a \
  "$(tail -n 1 "$work/requests")" = "/v$version/SHA256SUMS"
check "cache: vatcar-site is on PATH" on_path sh -c 'command -v vatcar-site >/dev/null'

# A cached archive that no longer matches its checksum is refused, not run.
runner corrupt Linux X64
printf 'x' >>"$cache_dir/vatcar-site-$version-x86_64-unknown-linux-gnu.tar.gz"
check "cache: a corrupt cache entry is refused" fails step install
check "cache: ... and nothing is on PATH" test ! -s "$GITHUB_PATH"
rm -rf "$cache_dir"
runner recover Linux X64
check "cache: without the entry it downloads again" step install

# A poisoned cache entry: the archive replaced by another program, and a checksum file beside
# it that matches (as an older action.sh kept one). Only the release's SHA256SUMS counts: the
# step fails, and the program is neither unpacked nor run.
runner poisoned Linux X64
poison="$work/poison/vatcar-site-$version-x86_64-unknown-linux-gnu"
mkdir -p "$poison"
printf '#!/bin/sh\ntouch "%s"\n' "$work/poison-ran" >"$poison/vatcar-site"
chmod +x "$poison/vatcar-site"
cached="$cache_dir/vatcar-site-$version-x86_64-unknown-linux-gnu.tar.gz"
tar -C "$work/poison" -czf "$cached" "vatcar-site-$version-x86_64-unknown-linux-gnu"
sha256 "$cached" >"$cached.sha256"
# As in action.yml: the run step follows only an install that succeeded.
installed=no
if step install; then
  installed=yes
  VATCAR_SITE_ARGS=--version on_path bash "$action" run >/dev/null 2>&1 || true
fi
check "poisoned: a cache entry whose archive and checksum were both replaced is refused" \
  test "$installed" = no
check "poisoned: it says the cached archive is not the release's" \
  logged "the cached vatcar-site-$version-x86_64-unknown-linux-gnu.tar.gz is not the release's"
check "poisoned: nothing is on PATH" test ! -s "$GITHUB_PATH"
check "poisoned: nothing is unpacked" test -z "$(ls -A "$RUNNER_TEMP")"
check "poisoned: the program never ran" test ! -e "$work/poison-ran"
rm -rf "$cache_dir"

# A download whose checksum does not match is refused: non-zero exit, nothing installed.
runner mismatch Linux X64
export INPUT_VERSION=6.6.6
check "mismatch: the install fails" fails step install
check "mismatch: it says checksum mismatch" logged "checksum mismatch"
check "mismatch: nothing is cached" test ! -e "$work/toolcache/vatcar-site/6.6.6"
check "mismatch: nothing is on PATH" test ! -s "$GITHUB_PATH"
check "mismatch: nothing is unpacked" test -z "$(ls -A "$RUNNER_TEMP")"

runner unlisted Linux X64
export INPUT_VERSION=7.7.7
check "unlisted: an asset SHA256SUMS does not name exactly is refused" fails step install
check "unlisted: it says so" logged "has no checksum for vatcar-site-7.7.7"
check "unlisted: nothing is on PATH" test ! -s "$GITHUB_PATH"

runner missing Linux X64
export INPUT_VERSION=9.9.9
check "missing: a release that does not exist fails" fails step install
# What docs/github-actions.md quotes for a fork or mirror that has the tag but no release.
check "missing: it names the address it could not download" \
  logged "::error title=vatcar-site action::cannot download http://127.0.0.1:$port/v9.9.9/SHA256SUMS"
check "missing: nothing is on PATH" test ! -s "$GITHUB_PATH"

# Each runner gets its own asset.
for runner_kind in "Linux ARM64 aarch64-unknown-linux-gnu" "macOS X64 x86_64-apple-darwin" \
  "macOS ARM64 aarch64-apple-darwin" "Windows X64 x86_64-pc-windows-msvc"; do
  read -r os arch target <<<"$runner_kind"
  runner "$os-$arch" "$os" "$arch"
  step resolve
  ext=tar.gz exe=vatcar-site
  [ "$os" = Windows ] && ext=zip exe=vatcar-site.exe
  check "$os $arch: the asset is $target's" \
    test "$(output_of asset)" = "vatcar-site-$version-$target.$ext"
  check "$os $arch: installs" step install
  bin_dir=$(tail -n 1 "$GITHUB_PATH")
  check "$os $arch: the installed program is $target's" \
    grep -q "stand-in $target" "$bin_dir/$exe"
done
for runner_kind in "Linux ARM" "Windows ARM64" "FreeBSD X64"; do
  read -r os arch <<<"$runner_kind"
  runner "$os-$arch" "$os" "$arch"
  check "$os $arch: no asset, refused" fails step resolve
  check "$os $arch: it says which runner" logged "no vatcar-site release for runners of $os on $arch"
done

# Where the version comes from.
runner ref-branch Linux X64
export ACTION_REF=main ACTION_PATH="$work/_actions/someone/vatcar-site/main"
check "version: at a branch, without the input, refused" fails step resolve
check "version: ... saying to give the input version" logged "give the input version"
export INPUT_VERSION=v$version
check "version: at a branch, the input decides (a leading v is allowed)" step resolve
check "version: ... which names the asset" test "$(output_of version)" = $version
runner ref-path Linux X64
export ACTION_REF="" ACTION_REPOSITORY=""
check "version: with github.action_ref empty, the action's path names the tag" step resolve
check "version: ... which is $version" test "$(output_of version)" = $version
export INPUT_VERSION='1.2.3; rm -rf /'
check "version: an input that is no version is refused" fails step resolve

runner override Linux X64
export VATCAR_SITE_RELEASES_URL=http://example.org/releases
check "override: a release address off 127.0.0.1 is refused" fails step install
check "override: it says it is for tests" logged "only name a server on 127.0.0.1"

# Running with args: words split like a shell's, nothing expanded.
runner args Linux X64
step install
mkdir -p "$R/work/site"
if [ -z "$real_archive" ]; then
  export VATCAR_SITE_ARGS="build --title \"San Juan 'CERAP'\" --output 'my site' \$(touch pwned) \`touch pwned\`"
  check "run: succeeds" on_path sh -c "cd '$R/work/site' && bash '$action' run >'$R/log' 2>&1"
  check "run: quoted words stay whole" grep -qx "arg:San Juan 'CERAP'" "$R/log"
  check "run: single quotes too" grep -qx "arg:my site" "$R/log"
  # shellcheck disable=SC2016 # the literal word the stand-in must have received
  check "run: nothing is expanded" grep -qx 'arg:$(touch' "$R/log"
  check "run: nothing is run" test ! -e "$R/work/site/pwned"
else
  export VATCAR_SITE_ARGS="build --demo --title \"San Juan 'CERAP'\" --output 'my site' --site-url https://demo.example.org/"
  check "run: the real binary builds the demo through the action" \
    on_path sh -c "cd '$R/work/site' && bash '$action' run >'$R/log' 2>&1"
  check "run: quoted words stay whole" grep -q "San Juan &#39;CERAP&#39;\|San Juan 'CERAP'" \
    "$R/work/site/my site/index.html"
  check "run: the action's output names the folder" \
    test "$(output_of output)" = "$R/work/site/my site"
fi
export VATCAR_SITE_ARGS="build --title 'unclosed"
check "run: an unclosed quote is refused" fails on_path sh -c "bash '$action' run >'$R/log' 2>&1"
check "run: ... saying so" logged "a quote is not closed"

echo
echo "action rehearsal: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
