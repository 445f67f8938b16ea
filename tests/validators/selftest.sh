#!/usr/bin/env bash
# selftest.sh [OUTDIR] -- proves every check in this folder can both pass and
# fail, on the hand-made files in testdata/:
#   testdata/ics/good/*.ics      must pass check-ics.sh
#   testdata/ics/bad/*.ics       each must fail with the check id in testdata/ics/EXPECTED
#   testdata/site/ minus bad-*   must pass check-html.sh and check-browser.mjs
#   testdata/site/bad-*.html     each must fail the check it was written for,
#                                and the good pages must stay clean in the same run
# Last line: 'selftest: N passed, M failed'. Exit 0 when M == 0, else 1.
set -u
TOOLS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$TOOLS" || exit 2
OUT="${1:-$TOOLS/selftest-out}"
rm -rf "$OUT"; mkdir -p "$OUT"
pass=0; failed=0
ok()  { pass=$((pass+1));   echo "ok   - $1"; }
nok() { failed=$((failed+1)); echo "FAIL - $1"; [ -n "${2:-}" ] && sed 's/^/       | /' "$2" | tail -n 15; }
# run NAME WANT_RC CMD... : output goes to $OUT/NAME.log
run() {
  local name="$1" want="$2"; shift 2
  "$@" >"$OUT/$name.log" 2>&1; local rc=$?
  if [ "$rc" = "$want" ]; then ok "$name exits $want"; else nok "$name exits $want (got $rc)" "$OUT/$name.log"; fi
}
has()    { if grep -qE -- "$3" "$OUT/$1.log"; then ok "$2"; else nok "$2" "$OUT/$1.log"; fi; }
hasnot() { if grep -qE -- "$3" "$OUT/$1.log"; then nok "$2" "$OUT/$1.log"; else ok "$2"; fi; }

echo "# iCalendar: check-ics.sh"
run ics-good 0 ./check-ics.sh testdata/ics/good/*.ics
has ics-good "good .ics files: 0 problems" '^ics: 2 files, 6 events, 0 problems$'
run ics-site-feed 0 ./check-ics.sh testdata/site/events/calendar.ics
run ics-usage 2 ./check-ics.sh
while IFS=$'\t' read -r file check; do
  case "$file" in ''|\#*) continue;; esac
  name="ics-$(basename "$file" .ics)"
  run "$name" 1 ./check-ics.sh "testdata/ics/$file"
  has "$name" "$file reports [$check]" "\[$check\]"
done < testdata/ics/EXPECTED
run ics-all-bad 1 ./check-ics.sh testdata/ics/bad/*.ics

echo "# HTML: check-html.sh"
CLEAN="$OUT/site-clean"
mkdir -p "$CLEAN" && cp -r testdata/site/. "$CLEAN/" && rm -f "$CLEAN"/bad-*.html
run html-clean 0 ./check-html.sh "$CLEAN"
has html-clean "clean site: 0 errors, 0 broken links" '^html: 3 files, 0 errors, 0 broken links$'
run html-clean-warnings 0 ./check-html.sh "$CLEAN" --warnings
run html-full 1 ./check-html.sh testdata/site
has html-full "vnu reports errors in bad-invalid-html.html" '^testdata/site/bad-invalid-html.html:[0-9]+:[0-9]+: error: \[vnu\] Duplicate ID'
has html-full "missing PDF reported as broken" 'bad-broken-link.html: broken link: .*documents/loa-missing.pdf \(HTTP 404\)'
has html-full "missing image reported as broken" 'bad-broken-link.html: broken link: .*img/missing-banner.png \(HTTP 404\)'
has html-full "missing #fragment reported as broken" 'bad-broken-link.html: broken link: .*roster.html#no-such-anchor'
has html-full "summary line counts them" '^html: 11 files, [1-9][0-9]* errors, 3 broken links$'
hasnot html-full "good pages stay clean" '^testdata/site/(index|roster|events/index)\.html'
mkdir -p "$OUT/empty"
run html-no-pages 2 ./check-html.sh "$OUT/empty"

echo "# Browser: check-browser.mjs"
run browser-clean 0 node check-browser.mjs "$CLEAN" --out "$OUT/shots-clean" --screenshot index.html --screenshot events/index.html --pdf roster.html
for f in index.png events__index.png; do
  if head -c 8 "$OUT/shots-clean/$f" 2>/dev/null | od -An -c | grep -q 'P   N   G'; then ok "screenshot $f is a PNG"; else nok "screenshot $f is a PNG"; fi
done
if head -c 5 "$OUT/shots-clean/roster.pdf" 2>/dev/null | grep -q '%PDF-'; then ok "roster.pdf is a PDF"; else nok "roster.pdf is a PDF"; fi
run browser-full 1 node check-browser.mjs testdata/site --out "$OUT/shots-full" --screenshot bad-a11y.html
has browser-full "alert() payload caught" '^bad-xss-alert.html: \[dialog\] JavaScript dialog opened: alert'
has browser-full "redirect payload caught" '^bad-xss-navigate.html: \[navigation\] page navigated away to https://attacker.example/'
has browser-full "exfiltration payload caught" '^bad-xss-exfil.html: \[external-request\] request to https://attacker.example/'
has browser-full "javascript: URL caught" '^bad-xss-js-url.html: \[javascript-url\]'
has browser-full "unlabelled input caught (axe label)" '^bad-a11y.html: \[a11y\] label \(critical\)'
has browser-full "empty button caught (axe button-name)" '^bad-a11y.html: \[a11y\] button-name \(critical\)'
has browser-full "low contrast caught (axe color-contrast)" '^bad-a11y.html: \[a11y\] color-contrast \(serious\)'
has browser-full "uncaught exception caught" '^bad-js-error.html: \[js-error\]'
has browser-full "console.error caught" '^bad-js-error.html: \[console-error\] explicit console.error'
has browser-full "404 subresource caught" '^bad-broken-link.html: \[console-error\] .*404'
hasnot browser-full "good pages stay clean" '^(index|roster|events/index)\.html: \['
has browser-full "summary line" '^browser: 11 pages, '

echo "selftest: $pass passed, $failed failed"
[ "$failed" = 0 ]
