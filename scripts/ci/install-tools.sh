#!/usr/bin/env bash
# scripts/ci/install-tools.sh [--no-apt] [--no-browser]
#
# Every pinned third-party tool the checks use, installed once per machine into a cache folder
# outside the clone, and linked into the clone where the checks look for them:
#   Debian (apt, as root): zsh (the zsh completion test), shellcheck, curl, mingw's C compiler
#     (the Windows check), chromium, chromium-driver and chromium-headless-shell (never a
#     browser downloaded by a test tool; .ci/run checks in the headless shell, the same Blink
#     without the browser around it, for about 40 % less CPU), poppler-utils, and a Java runtime for the Nu Html Checker when none of 17 or newer
#     is there;
#   PyPI -> venv-validators: the iCal parsers (tests/validators/requirements.lock.txt);
#   PyPI -> venv-ci: zigbuild, zig, zizmor, actionlint, jsonschema, feedparser
#     (scripts/ci/requirements-ci.txt);
#   npm -> node_modules: the Nu Html Checker, linkinator, playwright-core, axe-core, ical.js,
#     node-ical (tests/validators/package-lock.json; no install scripts, so nothing is downloaded
#     beside the registry's packages).
#
# The cache is $VATCAR_TOOLS_CACHE, by default ~/.cache/vatcar-site/tools, one folder per set of
# pins (a hash of the files above): a fresh machine fills it, a later run on the same machine
# finds it complete and only links it (a second or two). Links made in the clone (ignored by
# git): tests/validators/node_modules, tests/validators/.venv and target/ci/venv.
#
# --no-apt leaves Debian's packages alone (a runner that has its own browser and tools);
# --no-browser leaves out chromium (GitHub's runners have Google Chrome: set CHROMIUM).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1
apt=1 browser=1
for arg in "$@"; do
  case "$arg" in
    --no-apt) apt=0 ;;
    --no-browser) browser=0 ;;
    *)
      echo "usage: scripts/ci/install-tools.sh [--no-apt] [--no-browser]" >&2
      exit 2
      ;;
  esac
done
say() { printf 'install-tools: %s\n' "$*"; }
fail() {
  printf 'install-tools: FAILED: %s\n' "$*" >&2
  exit 1
}
started=$SECONDS

# --- Debian's packages --------------------------------------------------------------------
if [ "$apt" = 1 ]; then
  java_ok() { command -v java >/dev/null && java -version 2>&1 | grep -Eq 'version "(1[7-9]|[2-9][0-9])'; }
  wanted=(zsh shellcheck curl gcc-mingw-w64-x86-64 poppler-utils)
  if [ "$browser" = 1 ]; then
    wanted+=(chromium chromium-driver chromium-headless-shell)
  fi
  need=()
  for package in "${wanted[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || need+=("$package")
  done
  java_ok || need+=(openjdk-17-jre-headless)
  if [ "${#need[@]}" -gt 0 ]; then
    [ "$(id -u)" = 0 ] || fail "missing Debian packages: ${need[*]} (run as root, or apt-get install them)"
    say "apt-get install ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null || fail "apt-get update"
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${need[@]}" >/dev/null ||
      fail "apt-get install ${need[*]}"
  fi
fi

# --- the cache: one folder per set of pins ------------------------------------------------
pins=(tests/validators/package.json tests/validators/package-lock.json
  tests/validators/requirements.lock.txt scripts/ci/requirements-ci.txt)
hash=$(cat "${pins[@]}" | sha256sum | cut -c 1-16)
cache=${VATCAR_TOOLS_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/vatcar-site/tools}
dir=$cache/$hash
mkdir -p "$cache"
# One install at a time per machine; another run waits, then finds the folder complete.
exec 9>"$cache/.lock"
flock 9
if [ ! -f "$dir/.complete" ]; then
  # A folder left unfinished by a stopped run is made again (a venv cannot be moved, so it is
  # made in its place and marked complete last).
  rm -rf "$dir"
  mkdir -p "$dir"
  say "installing into $dir"
  python3 -m venv "$dir/venv-validators" || fail "python3 -m venv (apt-get install python3-venv?)"
  "$dir/venv-validators/bin/pip" install -q --disable-pip-version-check --require-hashes \
    -r tests/validators/requirements.lock.txt || fail "pip install (validators)"
  python3 -m venv "$dir/venv-ci" || fail "python3 -m venv"
  "$dir/venv-ci/bin/pip" install -q --disable-pip-version-check --require-hashes \
    -r scripts/ci/requirements-ci.txt || fail "pip install (CI tools)"
  cp tests/validators/package.json tests/validators/package-lock.json "$dir/"
  (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null) ||
    fail "npm ci"
  touch "$dir/.complete"
fi
flock -u 9

ln -sfn "$dir/node_modules" tests/validators/node_modules
ln -sfn "$dir/venv-validators" tests/validators/.venv
mkdir -p target/ci
ln -sfn "$dir/venv-ci" target/ci/venv

# --- verify -------------------------------------------------------------------------------
vnu=tests/validators/node_modules/vnu-jar/build/dist/vnu.jar
[ -f "$vnu" ] || fail "vnu.jar missing at $vnu"
vnu_v=$(java -jar "$vnu" --version 2>&1) || fail "java -jar vnu.jar --version: $vnu_v"
py_v=$(tests/validators/.venv/bin/python -c 'import importlib.metadata as m
print(", ".join(p + " " + m.version(p) for p in ("icalendar", "vobject", "recurring-ical-events")))') ||
  fail "the Python iCal parsers do not import"
node_v=$(cd tests/validators && node --input-type=module -e '
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
const require = createRequire(process.cwd() + "/");
const v = (p) => JSON.parse(readFileSync("node_modules/" + p + "/package.json", "utf8")).version;
await import("ical.js"); require("node-ical"); await import("linkinator"); await import("playwright-core"); require("axe-core");
console.log(["ical.js","node-ical","linkinator","playwright-core","axe-core","vnu-jar"].map((p) => p + " " + v(p)).join(", "));') ||
  fail "the node packages do not load"
say "vnu $vnu_v; $py_v; $node_v"
say "zizmor $(target/ci/venv/bin/zizmor --version | cut -d' ' -f2), $(target/ci/venv/bin/actionlint -version | head -n 1), cargo-zigbuild $(target/ci/venv/bin/cargo-zigbuild --version | cut -d' ' -f2)"
browsers=(/usr/bin/chromium /usr/bin/chromium-headless-shell)
[ -z "${CHROMIUM:-}" ] || browsers=("$CHROMIUM")
for browser in "${browsers[@]}"; do
  if [ -x "$browser" ]; then
    say "browser: $browser, $("$browser" --version 2>/dev/null | head -n 1)"
  fi
done
say "ready in $((SECONDS - started)) s ($dir)"
