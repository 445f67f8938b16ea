"""Writes the demo's previous build (changes.json and roster.json, as a build publishes them
in data/), which `build --demo` compares with so that its What's new page shows one of each
common change: a promotion, two new members, a new event and an updated document.

The previous build is the demo's data of the day before, built by vatcar-site itself:
- controllers 1696748 (Kevin Daniel) and 1476093 (José Martínez) not yet on the roster;
- 1617058 (Ana Sofía Maldonado) still S1;
- event 430 not yet posted;
- the Student Training Handbook still dated 11-Oct-2026.

Run from the repository's root after changing the demo's data: python3 demo/previous/make.py
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timezone

DEMO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
# The day before the demo's capture time (src/fetch/snapshot.rs, DEMO_FETCHED_AT).
EPOCH = int(datetime(2026, 11, 19, 12, 0, tzinfo=timezone.utc).timestamp())


def load(name):
    with open(os.path.join(DEMO, name), encoding="utf-8") as f:
        return json.load(f)


def main():
    roster = load("facility-roster.json")
    controllers = roster["data"]["controllers"]
    controllers[:] = [c for c in controllers if c["cid"] not in (1696748, 1476093)]
    for c in controllers:
        if c["cid"] == 1617058:
            c["rating"] = 2
    events = load("facility-events.json")
    events["data"] = [e for e in events["data"] if e["id"] != 430]
    documents = load("facility-documents.json")
    for category in documents:
        for f in category["files"]:
            if f["name"] == "Student Training Handbook":
                f["updated_at"] = "11-Oct-2026"
    with tempfile.TemporaryDirectory() as tmp:
        snapshot = os.path.join(tmp, "snapshot")
        os.mkdir(snapshot)
        for name, body in [
            ("facility-roster.json", roster),
            ("facility-events.json", events),
            ("facility-documents.json", documents),
            ("division-events.json", load("division-events.json")),
        ]:
            with open(os.path.join(snapshot, name), "w", encoding="utf-8") as f:
                json.dump(body, f, ensure_ascii=False)
        out = os.path.join(tmp, "out")
        env = dict(os.environ, SOURCE_DATE_EPOCH=str(EPOCH))
        subprocess.run(
            ["cargo", "run", "--quiet", "--", "build", "--snapshot", snapshot,
             "--output", out, "--quiet"],
            check=True, env=env, cwd=os.path.join(DEMO, ".."),
        )
        here = os.path.dirname(os.path.abspath(__file__))
        for name in ["changes.json", "roster.json"]:
            shutil.copy(os.path.join(out, "data", name), os.path.join(here, name))


if __name__ == "__main__":
    sys.exit(main())
