#!/usr/bin/env python3
"""The activity rule of docs/activity.md, computed independently of vatcar-site's code, over
the sessions a test's mock of VATSIM's Core API serves.

Reads JSON on stdin:
    {"now": "2026-11-29T12:00:00Z", "window_days": 90, "callsigns": ["TJSJ"],
     "members": {"1000001": [<items as GET /v2/members/{cid}/atc lists them>], ...}}
Writes JSON on stdout, for each member: {"hours": "4.3", "last": "2026-11-29" or null,
"months": {"2026-11": seconds, ...}} (the seconds that count in each UTC month of the window).
"""

import json
import sys
from datetime import datetime, timedelta, timezone

CONTROLLING = {"DEL", "GND", "TWR", "APP", "DEP", "CTR", "FSS"}


def parse(text):
    # The Core API writes its times without a zone; they are UTC.
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def counts(callsign, prefixes):
    parts = callsign.upper().split("_")
    return len(parts) >= 2 and parts[0] in prefixes and parts[-1] in CONTROLLING


def month_starts(start, end):
    """The first instants of the UTC months from start's to end's, and end itself."""
    edge = start.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    while edge < end:
        yield edge
        edge = (edge.replace(year=edge.year + 1, month=1) if edge.month == 12
                else edge.replace(month=edge.month + 1))


def figures(items, prefixes, now, window_start):
    seconds = 0
    last = None
    months = {}
    for item in items:
        session = item["connection_id"]
        if session.get("end") is None:
            continue
        start, end = parse(session["start"]), parse(session["end"])
        if not counts(session["callsign"], prefixes) or end - start >= timedelta(hours=24):
            continue
        inside_from, inside_to = max(start, window_start), min(end, now)
        inside = int((inside_to - inside_from).total_seconds())
        if inside <= 0:
            continue
        seconds += inside
        last = max(last, inside_to) if last else inside_to
        for month in month_starts(inside_from, inside_to):
            following = (month.replace(year=month.year + 1, month=1) if month.month == 12
                         else month.replace(month=month.month + 1))
            part = (min(following, inside_to) - max(month, inside_from)).total_seconds()
            key = month.strftime("%Y-%m")
            months[key] = months.get(key, 0) + int(part)
    return {
        "hours": f"{seconds / 3600:.1f}",
        "last": last.strftime("%Y-%m-%d") if last else None,
        "months": months,
    }


def main():
    given = json.load(sys.stdin)
    now = parse(given["now"])
    window_start = now - timedelta(days=given["window_days"])
    prefixes = {p.upper() for p in given["callsigns"]}
    result = {cid: figures(items, prefixes, now, window_start)
              for cid, items in given["members"].items()}
    json.dump(result, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
