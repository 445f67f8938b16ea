#!/usr/bin/env bash
# scripts/ci/layout.sh: the layout goals, measured in Chromium by tests/browser/check-layout.mjs
# at 320, 390, 768 and 1280 px in both colour schemes, on every page kind of the Spanish and
# Dutch facilities' sites and the demo (scripts/ci/sites.sh; the live page and the home page with
# their lists filled from the demo's sample of VATSIM's data feed): no horizontal overflow, a header
# of at most 96 px on phones and 140 px on a laptop, every menu entry reached by Tab and present
# with JavaScript off, the logo's backdrop at 3:1 or more against the accent, axe; and (issue
# 40) no name set letter by letter, long words that hyphenate, the accent shown as configured
# with readable text on it, and a focus ring of 2 px or more at 3:1 against what is behind it.
# Geometry and colours, never pixels. First the checker itself, on two pages of its own.
# Screenshots of each view that misses a goal go to target/ci/screenshots/<site>/; with
# LAYOUT_SCREENSHOTS=all, of every page kind x width x scheme (GitHub keeps them; taking them
# is a fifth of the check's time). Needs scripts/ci/install-tools.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools=tests/validators
# Each fixture's logo is drawn in its accent, so the accent is the logo's colour in both schemes.
accent_of() { sed -n 's/^accent = "\(#[0-9a-fA-F]\{6\}\)"$/\1/p' "tests/fixtures/$1/vatcar-site.toml"; }
es_accent=$(accent_of facility-es)
nl_accent=$(accent_of facility-nl)
fr_accent=$(accent_of facility-fr)
rm -rf target/ci/screenshots
shots=(--screenshots "${LAYOUT_SCREENSHOTS:-failures}")
# `measure SITE OPTION...`: the check of target/ci/SITE, its output in target/ci/layout-SITE.log.
measure() {
  local site=$1
  shift
  node tests/browser/check-layout.mjs "target/ci/$site" --tools "$tools" --out "target/ci/screenshots/$site" \
    "${shots[@]}" --feed demo/vatsim-data.json "$@" >"target/ci/layout-$site.log" 2>&1
}
# The Spanish site serves its event banners (scripts/ci/sites.sh): --local-banners checks each.
# The self-test and the three sites side by side: one Chromium keeps about one core busy (its
# page, then our script, in turn), so one check at a time left the other core idle.
names=(selftest facility-es facility-nl facility-fr demo)
pids=()
bash tests/browser/selftest.sh "$tools" >target/ci/layout-selftest.log 2>&1 &
pids+=("$!")
measure facility-es --page content=formacion/radar/index.html --page section=formacion/index.html \
  --menu-entries 9 --logo-colour "$es_accent" --accent "$es_accent" --local-banners &
pids+=("$!")
# Twelve entries: six built in (the roster's renamed in its place by a [[menu]] entry, and the
# live page's), six more.
measure facility-nl --page content=opleiding/toren/index.html --page section=opleiding/index.html \
  --menu-entries 12 --logo-colour "$nl_accent" --accent "$nl_accent" &
pids+=("$!")
# The demo has no section; its content page is join.md, with a table.
# A French one (issue 50): a long name with no short_title, a navy logo drawn on nothing.
measure facility-fr --page content=visiteurs/index.html --menu-entries 8 --logo-colour "$fr_accent" \
  --accent "$fr_accent" &
pids+=("$!")
measure demo --page content=join/index.html --menu-entries 8 &
pids+=("$!")
failed=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || failed=1
  cat "target/ci/layout-${names[$i]}.log"
done
if [ "$failed" != 0 ]; then
  echo "error: a layout goal is not met (target/ci/layout-*.log; screenshots in target/ci/screenshots)" >&2
  exit 1
fi
