#!/usr/bin/env bash
# selftest.sh TOOLS_DIR: check-layout.mjs against two small pages of its own (selftest/). One
# meets every goal and must pass; one misses each goal and must fail on each, naming it. A
# change that blinds the checker to a miss, or makes it see one that is not there, is caught
# here, before the checker measures the sites.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools=${1:?usage: tests/browser/selftest.sh TOOLS_DIR}
out=target/ci/layout-selftest
mkdir -p "$out"
check=(node tests/browser/check-layout.mjs tests/browser/selftest --tools "$tools" --menu-entries 3 --local-banners)

if ! "${check[@]}" --out "$out/good" --page home=good.html --logo-colour '#e8590c' --accent '#e8590c' >"$out/good.log"; then
  cat "$out/good.log" >&2
  echo "error: check-layout.mjs fails a page that meets every goal (tests/browser/selftest/good.html)" >&2
  exit 1
fi

status=0
# Configured yellow, shown as orange: a replaced accent.
"${check[@]}" --out "$out/bad" --page home=bad.html --accent '#f5c400' >"$out/bad.log" || status=$?
if [ "$status" != 1 ]; then
  cat "$out/bad.log" >&2
  echo "error: check-layout.mjs exits $status on a page that misses every goal, not 1" >&2
  exit 1
fi
for miss in \
  '320px light: page width' \
  'px (measured with body overflow-x: hidden undone: hiding overflow does not count)' \
  '320px light: header height' \
  '1280px dark: header height' \
  '390px dark: logo contrast 1.00:1, accent' \
  '768px dark: the logo'"'"'s plate is none here but rgb(255, 255, 255), padding 2px, radius 0px in light' \
  '390px light: the name "Curaçao FIR" shows "": its first 0 characters, not 11' \
  '320px dark: the name "Curaçao FIR" shows "": a word cut, Curaçao' \
  '768px light: the logo'"'"'s width="40" height="10" are not its own proportions (1.00:1)' \
  '320px dark: "TJSJ_I_TWR" (Callsign) is set on' \
  '390px light: "2026-12-02" (span) is set on' \
  '390px dark: axe image-alt (critical)' \
  'menu entry "One" is not reached by Tab, JavaScript off (opened: Menu)' \
  'menu entry "Three" is focused but not visible by Tab (opened: Menu)' \
  '320px light: "Curaçao FIR" (a.name) is set' \
  '390px dark: hyphens: manual on p ("Verkeersleidingsprocedures' \
  "1280px light: the accent #f5c400 is not the header's top rule" \
  '768px dark: focus ring rgb(255, 209, 102) on a "Four": 1.' \
  '320px light: a remote banner https://cdn.example.invalid/banner.png' \
  '1280px light: layout shift'; do
  if ! grep -qF -- "$miss" "$out/bad.log"; then
    cat "$out/bad.log" >&2
    echo "error: check-layout.mjs did not report '$miss' on tests/browser/selftest/bad.html" >&2
    exit 1
  fi
done
if [ ! -s "$out/bad/home-320-light.png" ]; then
  echo "error: check-layout.mjs kept no screenshot of a view that misses goals ($out/bad/home-320-light.png)" >&2
  exit 1
fi
echo "check-layout self-test: a page that meets every goal passes, one that misses each fails on each"
