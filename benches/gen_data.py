#!/usr/bin/env python3
"""Synthetic, API-shaped data of size N, written as a vatcar-site snapshot folder.

Usage: gen_data.py N OUTDIR [--seed S]

N home controllers (plus N//10 visitors and staff), N facility events and N division events,
each event with a ~1 KB markdown description, realistic names, airports and dates around the
build time the benchmark uses (2026-11-20), and VATSIM's bookings list (400 bookings, 40 of them
ours). Deterministic for a given N and seed.
"""
import argparse
import datetime as dt
import json
import os
import random

FIRST = ["Ana", "Luis", "Marie", "Kevin", "Sofía", "Jean", "Carlos", "Aaliyah", "Dwayne", "Keisha",
         "Pedro", "Renée", "Tomás", "Élodie", "Nikhil", "Grace", "Omar", "Yara", "Siobhán", "José"]
LAST = ["Rodríguez", "Baptiste", "Williams", "Pérez", "Joseph", "Campbell", "Gómez", "O'Neil",
        "Smith", "Martínez", "Charles", "Brown", "Díaz", "Thompson", "Lee", "Ramdial"]
AIRPORTS = ["TJSJ", "TNCM", "TBPB", "MKJP", "MDSD", "TTPP", "TFFR", "TFFF", "TNCA", "TNCC",
            "MYNN", "MWCR", "TAPA", "TKPK", "TLPL", "TGPY", "TIST", "TISX", "MUHA", "MDPC"]
WORDS = ("traffic approach tower ground arrivals departures runway vectors holding clearance "
         "oceanic sector staffing frequency flow caribbean island event pilots controllers "
         "welcome join fly night sunset rush hour briefing charts procedures").split()
NOW = dt.datetime(2026, 11, 20, 12, 0, tzinfo=dt.timezone.utc)


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def space(t):
    return t.strftime("%Y-%m-%d %H:%M:%S")


def sentence(rng, n):
    words = [rng.choice(WORDS) for _ in range(n)]
    return " ".join(words).capitalize() + "."


def description(rng):
    parts = [f"## {sentence(rng, 4)}", "", sentence(rng, 18) + " " + sentence(rng, 14), ""]
    parts += [f"- **{rng.choice(AIRPORTS)}**: {sentence(rng, 9)}" for _ in range(4)]
    parts += ["", sentence(rng, 20) + " See [the briefing](https://vatcar.net/events) for charts.",
              "", sentence(rng, 22)]
    text = "\n".join(parts)
    while len(text) < 1000:
        text += " " + sentence(rng, 8)
    return text


def event(rng, eid, facility):
    start = NOW + dt.timedelta(days=rng.randint(-400, 400), hours=rng.choice([-2, 0, 2, 4]))
    start = start.replace(minute=0, second=0, microsecond=0)
    end = start + dt.timedelta(hours=rng.choice([2, 3, 4]))
    dep = rng.sample(AIRPORTS, rng.randint(1, 3))
    arr = dep if rng.random() < 0.3 else rng.sample(AIRPORTS, rng.randint(1, 3))
    created = start - dt.timedelta(days=rng.randint(5, 60))
    positions = None
    if facility:
        positions = {"positions": [{"position": f"{rng.choice(AIRPORTS)}_TWR", "cid": rng.randint(1300000, 1699999)}
                                   for _ in range(rng.randint(0, 4))]}
    return {"id": eid, "name": f"{rng.choice(['Caribbean', 'Island', 'Sunset', 'Night'])} {rng.choice(['Crossfire', 'Fly-In', 'Hopper', 'Rush'])} {eid}",
            "description": description(rng),
            "image_url": f"https://vatcar.net/storage/event_banners/banner_{eid}.png",
            "start": space(start), "end": space(end),
            "airports": {"arrival": arr, "departure": dep}, "positions": positions,
            "forum_event_id": None, "facilities": rng.choice([1, 3, 5, 64]), "user_cid": 1300001, "edit_cid": 1300001,
            "created_at": iso(created), "updated_at": iso(created + dt.timedelta(days=2))}


def person(rng, cid, visitor=False):
    p = {"cid": cid, "first_name": rng.choice(FIRST), "last_name": rng.choice(LAST),
         "email": f"user{cid}@example.com", "rating": rng.choice([1, 2, 3, 3, 4, 4, 5, 5, 5, 7, 8, 10]),
         "join_date": space(NOW - dt.timedelta(days=rng.randint(10, 3000)))}
    if visitor:
        p["home_facility"] = rng.choice(["Miami ARTCC", "Piarco FIR", "Curaçao FIR"])
        p["visit_start"] = (NOW - dt.timedelta(days=rng.randint(10, 900))).strftime("%Y-%m-%d")
    return p


# VATSIM's ATC bookings list is network-wide: a few hundred bookings, most of them other
# divisions' positions; ours are the TJSJ, TJZS and TJBQ callsigns (`[live] callsigns`).
OURS = ["TJSJ_APP", "TJSJ_TWR", "TJSJ_GND", "TJSJ_I_TWR", "TJZS_CTR", "TJBQ_TWR"]
OTHERS = ["EGLL_TWR", "EGLL_N_APP", "KJFK_APP", "KJFK_TWR", "LFPG_TWR", "EDDF_N_APP", "KMIA_APP",
          "TNCM_TWR", "TNCA_APP", "MKJK_CTR", "TTZP_CTR", "EHAM_TWR", "CYYZ_TWR", "LEMD_APP",
          "KZNY_CTR", "ESSA_TWR", "YSSY_APP", "RJTT_TWR", "OMDB_APP", "SBGR_TWR"]
TYPES = ["booking", "booking", "booking", "event", "training", "exam", "mentoring"]


def bookings(rng, n):
    """The bookings list as VATSIM's API sends it: 400 bookings over a week around the build
    time (some ended), one in ten on our callsigns, cid as a number or a string."""
    out = []
    for i in range(400):
        callsign = rng.choice(OURS) if i % 10 == 0 else rng.choice(OTHERS)
        start = NOW + dt.timedelta(hours=rng.randint(-24, 7 * 24), minutes=rng.choice([0, 30]))
        cid = 1300100 + rng.randrange(n) if callsign in OURS else rng.randint(800000, 1900000)
        out.append({"id": 40000 + i, "cid": cid if i % 3 else str(cid), "type": rng.choice(TYPES),
                    "callsign": callsign, "start": space(start),
                    "end": space(start + dt.timedelta(minutes=rng.choice([60, 90, 120, 180]))),
                    "division": "CAR" if callsign in OURS else rng.choice(["EUR", "USA", "CAR", "PAC"]),
                    "subdivision": None})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed * 1_000_003 + args.n)
    n = args.n
    os.makedirs(args.out, exist_ok=True)
    roster = {"success": True, "data": {
        "facility": "San Juan CERAP",
        "staff": {k: {"cid": 1300000 + i, "name": f"{rng.choice(FIRST)} {rng.choice(LAST)}"}
                  for i, k in enumerate(["atm", "datm", "ta", "ec", "fe", "wm"])},
        "controllers": [person(rng, 1300100 + i) for i in range(n)],
        "visitors": [person(rng, 1600000 + i, True) for i in range(max(1, n // 10))]}}
    facility = {"success": "Events retrieved successfully", "data": [event(rng, 100000 + i, True) for i in range(n)]}
    division = {"success": "Events retrieved successfully", "data": [event(rng, 500000 + i, False) for i in range(n)]}
    documents = [{"name": cat, "files": [
        {"name": f"{cat} {j}", "details": sentence(rng, 8), "updated_at": (NOW - dt.timedelta(days=j)).strftime("%d-%b-%Y"),
         "url": f"https://vatcar.net/storage/files/{cat} {j}.pdf"} for j in range(max(3, n // 100))]}
        for cat in ["SOPs", "LOAs", "Training"]]
    files = {"facility-roster.json": roster, "facility-events.json": facility,
             "division-events.json": division, "facility-documents.json": documents,
             "bookings.json": bookings(rng, n),
             "snapshot.json": {"format": "vatcar-site snapshot 1", "fetched_at": "2026-11-20T12:00:00Z",
                               "base_url": "https://vatcar.net", "files": {}}}
    for name, body in files.items():
        with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
            json.dump(body, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
