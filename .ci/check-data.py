"""Validates a built site's public data (issue 25): data/changes.json, data/roster.json and
events.json against their schemas in docs/schemas/ (formats checked, date-time included),
events.json against JSON Feed 1.1's required fields, and whats-new.xml in feedparser.

Usage: python3 .ci/check-data.py SITE_FOLDER...   (run in the CI venv: jsonschema, feedparser)
"""

import json
import os
import sys

import feedparser
import jsonschema

SCHEMAS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "schemas")


def schema(name):
    with open(os.path.join(SCHEMAS, name), encoding="utf-8") as f:
        return json.load(f)


def validate(path, schema_name):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    validator = jsonschema.Draft202012Validator(
        schema(schema_name), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.path))
    for error in errors:
        print(f"{path}: {'/'.join(map(str, error.path))}: {error.message}", file=sys.stderr)
    return data, not errors


def json_feed(path, feed):
    """JSON Feed 1.1's own requirements (https://jsonfeed.org/version/1.1)."""
    problems = []
    if feed.get("version") != "https://jsonfeed.org/version/1.1":
        problems.append("version is not https://jsonfeed.org/version/1.1")
    if not isinstance(feed.get("title"), str):
        problems.append("no title")
    if not isinstance(feed.get("items"), list):
        problems.append("no items")
    for n, item in enumerate(feed.get("items") or []):
        if not isinstance(item.get("id"), str) or not item["id"]:
            problems.append(f"items[{n}] has no id")
        if not ("content_html" in item or "content_text" in item):
            problems.append(f"items[{n}] has neither content_html nor content_text")
    for key in list(feed) + [k for item in feed.get("items") or [] for k in item]:
        known = {"version", "title", "home_page_url", "feed_url", "description", "user_comment",
                 "next_url", "icon", "favicon", "authors", "language", "expired", "hubs",
                 "items", "id", "url", "external_url", "content_html", "content_text",
                 "summary", "image", "banner_image", "date_published", "date_modified",
                 "tags", "attachments"}
        if key not in known and not key.startswith("_"):
            problems.append(f"{key}: not a JSON Feed 1.1 field, and an extension starts with _")
    for problem in problems:
        print(f"{path}: {problem}", file=sys.stderr)
    return not problems


def atom(path):
    parsed = feedparser.parse(path)
    ok = not parsed.bozo and parsed.version == "atom10"
    if not ok:
        print(f"{path}: not a well-formed Atom 1.0 feed: {parsed.get('bozo_exception')}",
              file=sys.stderr)
    for n, entry in enumerate(parsed.entries):
        if not (entry.get("id") and entry.get("title") and entry.get("link")
                and entry.get("updated_parsed")):
            print(f"{path}: entry {n} lacks an id, title, link or updated", file=sys.stderr)
            ok = False
    return ok, len(parsed.entries)


def main(sites):
    ok = True
    for site in sites:
        changes, good = validate(os.path.join(site, "data", "changes.json"),
                                 "changes.schema.json")
        ok &= good
        roster = os.path.join(site, "data", "roster.json")
        if os.path.exists(roster):
            ok &= validate(roster, "roster.schema.json")[1]
        events = os.path.join(site, "events.json")
        if os.path.exists(events):
            feed, good = validate(events, "events.schema.json")
            ok &= json_feed(events, feed) and good
        entries = "-"
        atom_path = os.path.join(site, "whats-new.xml")
        if os.path.exists(atom_path):
            good, entries = atom(atom_path)
            ok &= good
            if entries != len(changes["changes"]):
                print(f"{atom_path}: {entries} entries, changes.json has "
                      f"{len(changes['changes'])}", file=sys.stderr)
                ok = False
        print(f"{site}: {len(changes['changes'])} changes, whats-new.xml {entries} entries")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
