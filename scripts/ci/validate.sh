#!/usr/bin/env bash
# scripts/ci/validate.sh: the sites of scripts/ci/sites.sh through the validators of
# tests/validators/ (the Nu Html Checker and links, strict RFC 5545 rules and five iCal
# parsers), the public data against its schemas, and announce's dry run on the demo. Needs
# scripts/ci/install-tools.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/target/ci/venv/bin:$PATH"
bin=target/ci/bin/vatcar-site
v=tests/validators

# Every calendar date is before year 9000 (events reaching it are left out), so every parser
# must read every file; any failure fails CI.
"$v/check-ics.sh" target/ci/demo/calendar/*.ics target/ci/demo/events/*/event.ics \
  target/ci/hostile/calendar/*.ics target/ci/hostile/events/*/event.ics

# One Nu checker (one JVM) for every site; the links site by site.
"$v/check-html.sh" target/ci/demo --site-url https://demo.example.org/ \
  target/ci/hostile --site-url https://hostile.example/ \
  target/ci/hostile-content --site-url https://hostile-content.example/ \
  target/ci/reports \
  target/ci/facility-es --site-url https://facility-es.example/ \
  target/ci/facility-nl --site-url https://facility-nl.example/ \
  target/ci/facility-fr --site-url https://facility-fr.example/

# What's new and the public data: changes.json, roster.json and events.json against
# docs/schemas/ (JSON Feed 1.1's required fields too), whats-new.xml in feedparser; on the demo
# (which compares with its built-in day before) and on a second build of hostile into the same
# folder (a previous build read back).
SOURCE_DATE_EPOCH=1795176000 "$bin" build --snapshot tests/fixtures/hostile --config tests/fixtures/hostile/live.toml \
  --output target/ci/hostile --site-url https://hostile.example/ --quiet
python3 .ci/check-data.py target/ci/demo target/ci/hostile

# The demo's previous state makes five changes new: a promotion, two new members, a new event
# and an updated document; the dry run shows them as one message of five embeds.
mkdir -p target/ci/announce
"$bin" announce --dry-run --output target/ci/demo | tee target/ci/announce/dry-run.txt
grep -q '^message 1 of 1 (5 embeds, ' target/ci/announce/dry-run.txt
echo "validate: HTML, links, iCal, public data and announce's dry run are clean"
