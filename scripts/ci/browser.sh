#!/usr/bin/env bash
# scripts/ci/browser.sh: every page of the sites of scripts/ci/sites.sh in headless Chromium
# (tests/validators/check-browser.mjs): script execution, axe, console errors, requests; the
# reports too, which must load nothing and print. The browser is $CHROMIUM, by default
# /usr/bin/chromium. Needs scripts/ci/install-tools.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
chromium=(--chromium "${CHROMIUM:-/usr/bin/chromium}")

# `check SITE`: the pages of target/ci/SITE (the reports too), all it says in
# target/ci/browser-SITE.log. (Called in a test of its status, where `set -e` does not hold:
# each failure returns.)
check() {
  local site=$1
  if [ "$site" = reports ]; then
    echo "== browser: the reports"
    node tests/validators/check-browser.mjs target/ci/reports "${chromium[@]}" --out target/ci/browser-reports \
      --pdf training-1590318.html --pdf roster.html --pdf training-1300002.html --pdf activity.html
    return
  fi
  echo "== browser: the $site site"
  # Event banners live on vatcar.net, the API's host, and the live block reads VATSIM's data
  # feed: the only requests allowed out (blocked here, so the pages show their calm line).
  node tests/validators/check-browser.mjs "target/ci/$site" "${chromium[@]}" --allow-external \
    --out "target/ci/browser-$site" | tee "target/ci/browser-$site.requests" || return 1
  if grep '\[external-request\]' "target/ci/browser-$site.requests" |
    grep -v -e 'https://vatcar.net/' -e 'https://data.vatsim.net/v3/vatsim-data.json'; then
    echo "error: a page of the $site site requested something other than vatcar.net and VATSIM's data feed"
    return 1
  fi
}
# Two lanes side by side: one Chromium waits on its page, then on our script, in turn, and kept
# about one core busy.
lane() {
  local status=0 site
  for site in "$@"; do
    check "$site" >"target/ci/browser-$site.log" 2>&1 || status=1
  done
  return "$status"
}
lane demo hostile-content reports facility-fr &
first=$!
lane hostile facility-es facility-nl &
second=$!
failed=0
wait "$first" || failed=1
wait "$second" || failed=1
for site in demo hostile hostile-content facility-es facility-nl facility-fr reports; do
  cat "target/ci/browser-$site.log"
done
if [ "$failed" != 0 ]; then
  echo "error: a page failed a check in Chromium (target/ci/browser-*.log)" >&2
  exit 1
fi
