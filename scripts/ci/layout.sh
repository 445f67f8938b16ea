#!/usr/bin/env bash
# scripts/ci/layout.sh: the layout goals, measured in Chromium by tests/browser/check-layout.mjs
# at 320, 390, 768 and 1280 px in both colour schemes, on every page kind of the Spanish and
# Dutch facilities' sites and the demo (scripts/ci/sites.sh; the live page and the home page with
# their lists filled from the demo's sample of VATSIM's data feed): no horizontal overflow, a header
# of at most 96 px on phones and 140 px on a laptop, every menu entry reached by Tab and present
# with JavaScript off, the logo's backdrop at 3:1 or more against the accent, axe; and (issue
# 40) no name set letter by letter, long words that hyphenate, the accent shown as configured
# with readable text on it, and a focus ring of 2 px or more at 3:1 against what is behind it.
# Geometry and colours, never pixels. First the checker itself, on two pages of its own. Screenshots of
# every page kind x width x scheme go to target/ci/screenshots/<site>/. Needs
# scripts/ci/install-tools.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools=tests/validators
bash tests/browser/selftest.sh "$tools"
# Each fixture's logo is drawn in its accent, so the accent is the logo's colour in both schemes.
accent_of() { sed -n 's/^accent = "\(#[0-9a-fA-F]\{6\}\)"$/\1/p' "tests/fixtures/$1/vatcar-site.toml"; }
es_accent=$(accent_of facility-es)
nl_accent=$(accent_of facility-nl)
rm -rf target/ci/screenshots
failed=0
node tests/browser/check-layout.mjs target/ci/facility-es --tools "$tools" --out target/ci/screenshots/facility-es \
  --page content=formacion/radar/index.html --page section=formacion/index.html \
  --menu-entries 9 --logo-colour "$es_accent" --accent "$es_accent" --feed demo/vatsim-data.json | tee target/ci/layout-facility-es.log || failed=1
# Twelve entries: six built in (the roster's renamed in its place by a [[menu]] entry, and the
# live page's), six more.
node tests/browser/check-layout.mjs target/ci/facility-nl --tools "$tools" --out target/ci/screenshots/facility-nl \
  --page content=opleiding/toren/index.html --page section=opleiding/index.html \
  --menu-entries 12 --logo-colour "$nl_accent" --accent "$nl_accent" --feed demo/vatsim-data.json | tee target/ci/layout-facility-nl.log || failed=1
# The demo has no section; its content page is join.md, with a table.
node tests/browser/check-layout.mjs target/ci/demo --tools "$tools" --out target/ci/screenshots/demo \
  --page content=join/index.html --menu-entries 8 --feed demo/vatsim-data.json | tee target/ci/layout-demo.log || failed=1
if [ "$failed" != 0 ]; then
  echo "error: a layout goal is not met (target/ci/layout-*.log; screenshots in target/ci/screenshots)" >&2
  exit 1
fi
