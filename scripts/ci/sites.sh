#!/usr/bin/env bash
# scripts/ci/sites.sh [BIN]: the sites and reports the validators check, built into target/ci/
# by BIN (by default the archive's binary, scripts/ci/archive.sh): the demo (the README's first
# command), a site from hostile data, one from hostile content pages, a Spanish facility's, a
# Dutch one's, a French one's, and the reports.
# scripts/ci/sites.sh --same-from BIN: the same built again by BIN into target/ci/again/, which
# must hold the same bytes (the publication's own record, .vatcar-site.json, aside: it holds
# each file's time). .ci/run builds the sites with the tests' debug binary, so that the browser
# checks start while the archive compiles, then holds the archive's binary to the same output.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=target/ci
bin=${1:-target/ci/bin/vatcar-site}
if [ "${1-}" = --same-from ]; then
  bin=${2:?usage: scripts/ci/sites.sh --same-from BIN}
  out=target/ci/again
fi
sites=(demo hostile hostile-content facility-es facility-nl facility-fr reports)
at=(env SOURCE_DATE_EPOCH=1795176000)
for site in "${sites[@]}"; do
  rm -rf "${out:?}/$site"
done
"$bin" build --demo --output "$out"/demo --site-url https://demo.example.org/
test -s "$out"/demo/index.html
# With its live.toml, whose [live] callsigns take the fixture's hostile bookings.json.
"${at[@]}" "$bin" build --snapshot tests/fixtures/hostile --config tests/fixtures/hostile/live.toml \
  --output "$out"/hostile --site-url https://hostile.example/
# Content pages that must build and validate: hundreds of identical headings, thousands of
# links, written ids beside made ones, footnotes with odd labels.
"${at[@]}" "$bin" build --demo --config tests/fixtures/hostile-content/vatcar-site.toml \
  --output "$out"/hostile-content --site-url https://hostile-content.example/
# A Spanish facility: nine menu entries, a logo drawn in its accent, a section whose guide
# holds a wide table, a code block and a long URL. The layout check measures it. Built from a
# stand-in for the API on 127.0.0.1 (the demo's data, every event's banner on it too), so that
# the build fetches, resizes and serves the banners itself and the checks see our copies.
# The documents' links name the API's address, so a build again (--same-from) uses the same port.
rm -rf "$out/.vatcar-site-cache"
port=0
if [ "$out" != target/ci ]; then
  port=$(sed -n 's/^listening on http:\/\/127\.0\.0\.1://p' target/ci/mock-api.out)
fi
# Made here, not by the redirection below: that happens in the background job, which the loop
# reading it can overtake on a busy machine (sed then fails on a file not there yet).
: >"$out/mock-api.out"
python3 benches/mock_api.py demo --latency 0 --port "$port" --banner tests/fixtures/banner/banner.png \
  >"$out/mock-api.out" &
mock=$!
trap 'kill "$mock" 2>/dev/null || true' EXIT
api=
for _ in $(seq 100); do
  api=$(sed -n 's/^listening on //p' "$out/mock-api.out")
  [ -n "$api" ] && break
  sleep 0.1
done
test -n "$api"
"${at[@]}" VATCAR_API_KEY=stand-in-key-for-ci "$bin" build --config tests/fixtures/facility-es/vatcar-site.toml \
  --base-url "$api" --bookings-url "$api/api/booking" --banners local --quiet \
  --output "$out"/facility-es --site-url https://facility-es.example/
kill "$mock"
grep -q 'srcset="../../banners/' "$out"/facility-es/events/*/index.html
# A Dutch facility, unlike the Spanish one (issue 40): a long name, a wide 4:1 logo, a bright
# yellow accent on an accent header, eleven menu entries of long Dutch words, a display zone.
"${at[@]}" "$bin" build --demo --config tests/fixtures/facility-nl/vatcar-site.toml \
  --output "$out"/facility-nl --site-url https://facility-nl.example/
# A French facility (issue 50): a long name with no short name, a navy logo on nothing.
"${at[@]}" "$bin" build --demo --config tests/fixtures/facility-fr/vatcar-site.toml \
  --output "$out"/facility-fr --site-url https://facility-fr.example/
"$bin" report training --demo --cid 1590318 --cid 1612745 --output "$out"/reports
"$bin" report roster --demo --output "$out"/reports
# The staff's activity report, from the demo's sample of sessions.
"$bin" report activity --demo --output "$out"/reports
# A training record whose notes hold remote images and deep nesting: it must load nothing.
"${at[@]}" "$bin" report training --snapshot tests/fixtures/hostile \
  --cid 1300002 --output "$out"/reports
if [ "$out" != target/ci ]; then
  for site in "${sites[@]}"; do
    diff -r --exclude=.vatcar-site.json "target/ci/$site" "$out/$site"
  done
  echo "sites: $bin built the same bytes as the sites of target/ci/"
else
  echo "sites: built into target/ci/ by $bin"
fi
