#!/usr/bin/env bash
# scripts/ci/browser.sh: every page of the sites of scripts/ci/sites.sh in headless Chromium
# (tests/validators/check-browser.mjs): script execution, axe, console errors, requests; the
# reports too, which must load nothing and print. The browser is $CHROMIUM, by default
# /usr/bin/chromium. Needs scripts/ci/install-tools.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
chromium=(--chromium "${CHROMIUM:-/usr/bin/chromium}")
for site in demo hostile hostile-content facility-es facility-nl; do
  echo "== browser: the $site site"
  # Event banners live on vatcar.net, the API's host, and the live block reads VATSIM's data
  # feed: the only requests allowed out (blocked here, so the pages show their calm line).
  node tests/validators/check-browser.mjs "target/ci/$site" "${chromium[@]}" --allow-external \
    --out "target/ci/browser-$site" | tee "target/ci/browser-$site.log"
  if grep '\[external-request\]' "target/ci/browser-$site.log" |
    grep -v -e 'https://vatcar.net/' -e 'https://data.vatsim.net/v3/vatsim-data.json'; then
    echo "error: a page of the $site site requested something other than vatcar.net and VATSIM's data feed" >&2
    exit 1
  fi
done
echo "== browser: the reports"
node tests/validators/check-browser.mjs target/ci/reports "${chromium[@]}" --out target/ci/browser-reports \
  --pdf training-1590318.html --pdf roster.html --pdf training-1300002.html
