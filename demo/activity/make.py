"""Writes demo/activity.json: the demo facility's members' ATC sessions, as a build keeps
them (data/activity.json), so that `build --demo` and `serve --demo` show the roster's hours,
the member pages' figures and what [activity] adds, with no network.

Made up, and made to show every case a facility meets: members well above the division's
rule of 3 hours in 90 days and some below it, students on DEL and GND, sessions across
midnight, an _OBS and another facility's position (which do not count), one member read
whose window is empty, and three never read yet (shown as "unknown").

Deterministic (a fixed seed): run from the repository's root after changing the demo's
roster: python3 demo/activity/make.py
"""

import json
import os
import random
from datetime import datetime, timedelta, timezone

DEMO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
# The demo's capture time (src/fetch/snapshot.rs, DEMO_FETCHED_AT) and the default window.
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
WINDOW_DAYS = 90
# Positions by the rating (VATSIM's numbers) that may work them: an observer (1) only
# observes, S1 (2) up to DEL and GND, S2 (3) TWR, S3 (4) APP, C1 (5) and above CTR.
POSITIONS = {
    1: ["TJSJ_OBS"],
    2: ["TJSJ_DEL", "TJSJ_GND", "TJBQ_GND"],
    3: ["TJSJ_TWR", "TJBQ_TWR", "TJSJ_GND"],
    4: ["TJSJ_APP", "TJSJ_TWR", "TJBQ_TWR"],
    5: ["TJZS_CTR", "TJSJ_APP", "TJSJ_I_APP"],
}
# Never read yet: the budget ran out before their turn.
NOT_READ = {1696748, 1476093, 1445019}
# Read, and nothing in the window.
IDLE = {1684319, 1690263, 1387605}
# A few hours a month or less: below the rule.
LIGHT = {1648207, 1603412, 1621833, 1655930, 1526640}


def stamp(when):
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def sessions_of(cid, rating, rng, next_id):
    if cid in IDLE:
        # One session long before the window: read, and nothing in it.
        return []
    count = rng.randint(1, 2) if cid in LIGHT else rng.randint(4, 16)
    positions = POSITIONS[min(max(rating, 1), 5)]
    made = []
    for _ in range(count):
        day = NOW - timedelta(days=rng.randint(0, WINDOW_DAYS + 10), hours=rng.randint(0, 23))
        start = day.replace(minute=rng.choice([0, 5, 15, 30, 45]), second=0)
        length = timedelta(minutes=rng.randint(25, 60 if cid in LIGHT else 200))
        end = start + length
        if end > NOW - timedelta(minutes=30):
            continue
        made.append({"id": next_id(), "callsign": rng.choice(positions),
                     "start": stamp(start), "end": stamp(end)})
    if rng.random() < 0.3:
        start = NOW - timedelta(days=rng.randint(1, 60), hours=3)
        made.append({"id": next_id(), "callsign": "TJSJ_OBS", "start": stamp(start),
                     "end": stamp(start + timedelta(minutes=50))})
    if rng.random() < 0.2:
        start = NOW - timedelta(days=rng.randint(1, 60), hours=5)
        made.append({"id": next_id(), "callsign": "TNCM_TWR", "start": stamp(start),
                     "end": stamp(start + timedelta(minutes=75))})
    made.sort(key=lambda s: s["start"], reverse=True)
    return made


def main():
    with open(os.path.join(DEMO, "facility-roster.json"), encoding="utf-8") as f:
        roster = json.load(f)["data"]
    rng = random.Random(20261120)
    ids = iter(range(48_100_000, 49_000_000, 7))
    members = []
    for person in roster["controllers"] + roster["visitors"]:
        cid = person["cid"]
        if cid in NOT_READ:
            continue
        checked = NOW - timedelta(hours=rng.randint(1, 60))
        sessions = sessions_of(cid, person.get("rating") or 1, rng, lambda: next(ids))
        # One across midnight, for the member with the most.
        members.append({"cid": cid, "checked": stamp(checked), "tried": stamp(checked),
                        "sessions": sessions})
    busiest = max(members, key=lambda m: (len(m["sessions"]), m["cid"]))
    start = (NOW - timedelta(days=3)).replace(hour=22, minute=30)
    busiest["sessions"].insert(0, {"id": next(ids), "callsign": "TJZS_CTR",
                                   "start": stamp(start),
                                   "end": stamp(start + timedelta(hours=3, minutes=10))})
    busiest["sessions"].sort(key=lambda s: s["start"], reverse=True)
    members.sort(key=lambda m: m["cid"])
    out = {"version": 1, "generated": stamp(NOW), "window_days": WINDOW_DAYS,
           "origin": {"facility": None, "demo": True}, "members": members}
    with open(os.path.join(DEMO, "activity.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
