#!/usr/bin/env bash
# scripts/ci/sites.sh: the sites and reports the validators check, built by the archive's
# binary (scripts/ci/archive.sh) into target/ci/: the demo (the README's first command), a site
# from hostile data, one from hostile content pages, a Spanish facility's, a Dutch one's, and
# the reports.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=target/ci/bin/vatcar-site
at=(env SOURCE_DATE_EPOCH=1795176000)
rm -rf target/ci/demo target/ci/hostile target/ci/hostile-content target/ci/facility-es target/ci/facility-nl \
  target/ci/reports
"$bin" build --demo --output target/ci/demo --site-url https://demo.example.org/
test -s target/ci/demo/index.html
# With its live.toml, whose [live] callsigns take the fixture's hostile bookings.json.
"${at[@]}" "$bin" build --snapshot tests/fixtures/hostile --config tests/fixtures/hostile/live.toml \
  --output target/ci/hostile --site-url https://hostile.example/
# Content pages that must build and validate: hundreds of identical headings, thousands of
# links, written ids beside made ones, footnotes with odd labels.
"${at[@]}" "$bin" build --demo --config tests/fixtures/hostile-content/vatcar-site.toml \
  --output target/ci/hostile-content --site-url https://hostile-content.example/
# A Spanish facility: nine menu entries, a logo drawn in its accent, a section whose guide
# holds a wide table, a code block and a long URL. The layout check measures it.
"${at[@]}" "$bin" build --demo --config tests/fixtures/facility-es/vatcar-site.toml \
  --output target/ci/facility-es --site-url https://facility-es.example/
# A Dutch facility, unlike the Spanish one (issue 40): a long name, a wide 4:1 logo, a bright
# yellow accent on an accent header, eleven menu entries of long Dutch words, a display zone.
"${at[@]}" "$bin" build --demo --config tests/fixtures/facility-nl/vatcar-site.toml \
  --output target/ci/facility-nl --site-url https://facility-nl.example/
"$bin" report training --demo --cid 1590318 --cid 1612745 --output target/ci/reports
"$bin" report roster --demo --output target/ci/reports
# A training record whose notes hold remote images and deep nesting: it must load nothing.
"${at[@]}" "$bin" report training --snapshot tests/fixtures/hostile \
  --cid 1300002 --output target/ci/reports
echo "sites: built into target/ci/"
