#!/usr/bin/env bash
# check-ics.sh FILE.ics... -- validate iCalendar files with strict RFC 5545
# checks plus five third-party parsers (icalendar, vobject,
# recurring-ical-events, ical.js, node-ical). See README.md.
# Exit: 0 no problems, 1 problems found, 2 usage/installation error.
set -u
TOOLS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="$TOOLS/.venv/bin/python"
if [ ! -x "$PY" ] || [ ! -d "$TOOLS/node_modules/ical.js" ] || [ ! -d "$TOOLS/node_modules/node-ical" ]; then
  echo "check-ics: validators not installed; run scripts/ci/install-tools.sh" >&2
  exit 2
fi
if [ "$#" -eq 0 ]; then
  echo "usage: check-ics.sh [--all] [-q] FILE.ics..." >&2
  exit 2
fi
export TZ=UTC
exec "$PY" "$TOOLS/lib/check_ics.py" "$@"
