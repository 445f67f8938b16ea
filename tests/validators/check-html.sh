#!/usr/bin/env bash
# check-html.sh DIR [--warnings] [--no-links] [--site-url URL]
# Nu Html Checker (vnu) on every .html (+ .css/.svg) file under DIR, then a
# link/asset/fragment check with linkinator against DIR served on 127.0.0.1.
# Exit: 0 clean, 1 errors or broken links (or warnings with --warnings),
#       2 usage/installation error. See README.md.
set -u
TOOLS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ ! -f "$TOOLS/node_modules/vnu-jar/build/dist/vnu.jar" ] || [ ! -d "$TOOLS/node_modules/linkinator" ]; then
  echo "check-html: validators not installed; run scripts/ci/install-tools.sh" >&2
  exit 2
fi
exec node "$TOOLS/lib/check-html.mjs" "$@"
