#!/usr/bin/env python3
"""check-ics: validate iCalendar (RFC 5545) files.

Two layers, both reported as 'FILE[:LINE]: [check-id] message', one line per
problem:

1. Strict RFC 5545 checks done here on the raw bytes, because real parsers are
   lenient about exactly these (see testdata/ics/EXPECTED for one file per
   check): CRLF line endings, <=75-octet lines, folding that never splits a
   UTF-8 character, content-line grammar, no raw control characters, TEXT
   escaping of , ; \\ and newlines, VCALENDAR's VERSION:2.0 and PRODID, every
   VEVENT's UID (unique in the file), DTSTAMP (UTC) and DTSTART, DTEND later
   than DTSTART, date/time value syntax, TZID -> VTIMEZONE, RRULE UNTIL type,
   property cardinality and names.

2. Independent third-party parsers: icalendar (v7), vobject and
   recurring-ical-events (Python, in-process) and ical.js and node-ical
   (JavaScript, via lib/ics-parse-node.mjs).  Any exception, any error that a
   parser records, and any disagreement between parsers on the number of
   events, their UIDs, SUMMARY, start or end is a problem.

Final line: 'ics: N files, M events, K problems'.  Exit 0 if K == 0, 1 if
K > 0, 2 on a usage error or when a parser could not be run at all.
"""
from __future__ import annotations

import argparse
import calendar as _calendar
import datetime as dt
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- registries
KNOWN_PROPERTIES = {
    # RFC 5545
    "CALSCALE", "METHOD", "PRODID", "VERSION", "ATTACH", "CATEGORIES", "CLASS", "COMMENT",
    "DESCRIPTION", "GEO", "LOCATION", "PERCENT-COMPLETE", "PRIORITY", "RESOURCES", "STATUS",
    "SUMMARY", "COMPLETED", "DTEND", "DUE", "DTSTART", "DURATION", "FREEBUSY", "TRANSP",
    "TZID", "TZNAME", "TZOFFSETFROM", "TZOFFSETTO", "TZURL", "ATTENDEE", "CONTACT",
    "ORGANIZER", "RECURRENCE-ID", "RELATED-TO", "URL", "UID", "EXDATE", "EXRULE", "RDATE",
    "RRULE", "ACTION", "REPEAT", "TRIGGER", "CREATED", "DTSTAMP", "LAST-MODIFIED", "SEQUENCE",
    "REQUEST-STATUS",
    # RFC 7986
    "NAME", "REFRESH-INTERVAL", "SOURCE", "COLOR", "IMAGE", "CONFERENCE",
    # RFC 7808, 7953, 9073, 9074, 9253
    "TZUNTIL", "TZID-ALIAS-OF", "BUSYTYPE", "LOCATION-TYPE", "PARTICIPANT-TYPE",
    "RESOURCE-TYPE", "CALENDAR-ADDRESS", "STYLED-DESCRIPTION", "STRUCTURED-DATA",
    "ACKNOWLEDGED", "PROXIMITY", "LINK", "CONCEPT", "REFID",
}
KNOWN_COMPONENTS = {
    "VCALENDAR", "VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VTIMEZONE", "STANDARD",
    "DAYLIGHT", "VALARM", "VAVAILABILITY", "AVAILABLE", "VLOCATION", "VRESOURCE", "PARTICIPANT",
}
# Properties whose value is a single TEXT (RFC 5545 3.3.11): , and ; must be escaped.
TEXT_SINGLE = {"SUMMARY", "DESCRIPTION", "LOCATION", "COMMENT", "CONTACT", "TZNAME", "NAME",
               "UID", "PRODID", "X-WR-CALNAME", "X-WR-CALDESC", "X-WR-RELCALID"}
# Properties whose value is a comma-separated list of TEXT: ; must be escaped.
TEXT_LIST = {"CATEGORIES", "RESOURCES"}
# RFC 5545 3.6.1: in VEVENT these MUST NOT occur more than once.
VEVENT_ONCE = {"UID", "DTSTAMP", "DTSTART", "CLASS", "CREATED", "DESCRIPTION", "GEO",
               "LAST-MODIFIED", "LOCATION", "ORGANIZER", "PRIORITY", "SEQUENCE", "STATUS",
               "SUMMARY", "TRANSP", "URL", "RECURRENCE-ID", "DTEND", "DURATION", "RRULE"}
DATE_PROPS = {"DTSTART", "DTEND", "DTSTAMP", "CREATED", "LAST-MODIFIED", "RECURRENCE-ID",
              "EXDATE", "RDATE", "DUE", "COMPLETED"}
UTC_ONLY = {"DTSTAMP", "CREATED", "LAST-MODIFIED", "COMPLETED"}

CONTROL_RE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
NAME_RE = re.compile(r"[A-Za-z0-9-]+")
DATE_RE = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
DATETIME_RE = re.compile(r"^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$")
DURATION_RE = re.compile(r"^([+-])?P(?:(\d+)W|(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?)$")
UTCOFFSET_RE = re.compile(r"^[+-](\d{2})(\d{2})(\d{2})?$")


class Problems:
    def __init__(self, max_per_check: int):
        self.items: list[tuple[str, int | None, str, str]] = []
        self.max_per_check = max_per_check

    def add(self, file, line, check, msg):
        self.items.append((file, line, check, msg))

    def emit(self, out=sys.stdout) -> int:
        shown = Counter()
        hidden = Counter()
        for file, line, check, msg in self.items:
            key = (file, check)
            shown[key] += 1
            if self.max_per_check and shown[key] > self.max_per_check:
                hidden[key] += 1
                continue
            loc = f"{file}:{line}" if line else file
            print(f"{loc}: [{check}] {msg}", file=out)
        for (file, check), n in hidden.items():
            print(f"{file}: [{check}] ... {n} more problem(s) of this kind not shown (use --all)", file=out)
        return len(self.items)


# ------------------------------------------------------------- raw scanning
class Prop:
    __slots__ = ("name", "params", "value", "line")

    def __init__(self, name, params, value, line):
        self.name, self.params, self.value, self.line = name, params, value, line


class Comp:
    def __init__(self, name, line, parent=None):
        self.name, self.line, self.parent = name, line, parent
        self.props: list[Prop] = []
        self.children: list[Comp] = []
        self.closed = False

    def all(self, name):
        return [p for p in self.props if p.name == name]

    def first(self, name):
        for p in self.props:
            if p.name == name:
                return p
        return None

    def walk(self, name=None):
        if name is None or self.name == name:
            yield self
        for c in self.children:
            yield from c.walk(name)


def parse_content_line(s: str):
    """RFC 5545 3.1 contentline = name *(";" param ) ":" value.  Returns
    (name, {PARAM: [values]}, value) or raises ValueError(reason)."""
    m = NAME_RE.match(s)
    if not m:
        raise ValueError("no property name")
    name = m.group(0).upper()
    i = m.end()
    params: dict[str, list[str]] = {}
    while i < len(s) and s[i] == ";":
        m = NAME_RE.match(s, i + 1)
        if not m:
            raise ValueError("bad parameter name")
        pname = m.group(0).upper()
        i = m.end()
        if i >= len(s) or s[i] != "=":
            raise ValueError(f"parameter {pname} has no '='")
        vals = []
        while True:
            i += 1
            if i < len(s) and s[i] == '"':
                j = s.find('"', i + 1)
                if j < 0:
                    raise ValueError(f"unterminated quoted value in parameter {pname}")
                vals.append(s[i + 1:j])
                i = j + 1
            else:
                j = i
                while j < len(s) and s[j] not in ';:,"':
                    j += 1
                if j < len(s) and s[j] == '"':
                    raise ValueError(f'DQUOTE inside unquoted value of parameter {pname}')
                vals.append(s[i:j])
                i = j
            if i < len(s) and s[i] == ",":
                continue
            break
        params[pname] = vals
    if i >= len(s) or s[i] != ":":
        raise ValueError("no ':' after property name/parameters")
    return name, params, s[i + 1:]


def check_date_value(file, P, prop: Prop, comp_name, tzids):
    """Validate DATE / DATE-TIME syntax of one property; returns list of
    ('D'|'F'|'U'|'T', datetime/date, tzid) or None per value."""
    vtype = (prop.params.get("VALUE", [""])[0] or "").upper()
    tzid = prop.params.get("TZID", [None])[0]
    out = []
    if vtype == "PERIOD":
        return out
    for raw in prop.value.split(","):
        if vtype == "DATE":
            m = DATE_RE.match(raw)
            if not m:
                P.add(file, prop.line, "value-format", f"{prop.name} has VALUE=DATE but value {raw!r} is not YYYYMMDD")
                out.append(None)
                continue
            try:
                d = dt.date(int(m[1]), int(m[2]), int(m[3]))
            except ValueError as e:
                P.add(file, prop.line, "value-format", f"{prop.name} value {raw!r} is not a real date ({e})")
                out.append(None)
                continue
            if tzid:
                P.add(file, prop.line, "value-format", f"{prop.name} is a DATE but has a TZID parameter")
            out.append(("D", d, None))
            continue
        if vtype not in ("", "DATE-TIME"):
            P.add(file, prop.line, "value-format", f"{prop.name} has unexpected VALUE={vtype}")
            out.append(None)
            continue
        m = DATETIME_RE.match(raw)
        if not m:
            hint = " (a DATE needs ;VALUE=DATE)" if DATE_RE.match(raw) else ""
            P.add(file, prop.line, "value-format", f"{prop.name} value {raw!r} is not a DATE-TIME YYYYMMDDTHHMMSS[Z]{hint}")
            out.append(None)
            continue
        y, mo, d, h, mi, s = (int(m[k]) for k in range(1, 7))
        try:
            value = dt.datetime(y, mo, d, h, mi, min(s, 59))
            if h > 23 or mi > 59 or s > 60:
                raise ValueError("time out of range")
        except ValueError as e:
            P.add(file, prop.line, "value-format", f"{prop.name} value {raw!r} is not a real date-time ({e})")
            out.append(None)
            continue
        utc = m[7] == "Z"
        if utc and tzid:
            P.add(file, prop.line, "value-format", f"{prop.name} has TZID={tzid} but a UTC ('Z') value")
        if prop.name in UTC_ONLY and not utc:
            check = "event-dtstamp" if prop.name == "DTSTAMP" else "value-format"
            P.add(file, prop.line, check, f"{prop.name} must be a UTC date-time ending in 'Z', got {raw!r}")
        if tzid and not utc and tzid not in tzids:
            P.add(file, prop.line, "tzid-vtimezone",
                  f"{prop.name} uses TZID={tzid} but the VCALENDAR has no VTIMEZONE with that TZID (RFC 5545 3.2.19)")
        if utc:
            out.append(("U", value, None))
        elif tzid:
            out.append(("T", value, tzid))
        else:
            out.append(("F", value, None))
    return out


def to_utc(v, vtimezones):
    """Resolve ('T', naive, tzid) to UTC via zoneinfo when possible."""
    kind, value, tzid = v
    if kind == "U":
        return value
    if kind == "T":
        try:
            from zoneinfo import ZoneInfo
            z = ZoneInfo(tzid)
            return value.replace(tzinfo=z).astimezone(dt.timezone.utc).replace(tzinfo=None)
        except Exception:
            return None
    return None


def check_text(file, P, prop: Prop, multi: bool):
    v = prop.value
    i = 0
    while i < len(v):
        c = v[i]
        if c == "\\":
            nxt = v[i + 1] if i + 1 < len(v) else ""
            if nxt not in ("\\", ";", ",", "n", "N"):
                what = "at end of value" if not nxt else f"followed by {nxt!r}"
                P.add(file, prop.line, "text-escape",
                      f"{prop.name}: backslash {what} is not a valid TEXT escape (only \\\\ \\; \\, \\n \\N)")
            i += 2
            continue
        if c == ";":
            P.add(file, prop.line, "text-escape", f"{prop.name}: unescaped ';' in TEXT value (write '\\;')")
        elif c == "," and not multi:
            P.add(file, prop.line, "text-escape", f"{prop.name}: unescaped ',' in TEXT value (write '\\,')")
        i += 1


def scan(file: str, data: bytes, P: Problems):
    """Strict RFC 5545 checks on raw bytes.  Returns (root components, n_vevents)."""
    if not data:
        P.add(file, None, "structure", "file is empty")
        return [], 0
    if data.startswith(b"\xef\xbb\xbf"):
        P.add(file, 1, "encoding", "file starts with a UTF-8 byte-order mark (not allowed before BEGIN:VCALENDAR)")
        data = data[3:]

    # --- physical lines and their terminators
    phys = []  # (lineno, bytes, terminator)
    pos, n = 0, len(data)
    lineno = 0
    while pos < n:
        m = re.compile(rb"[\r\n]").search(data, pos)
        lineno += 1
        if not m:
            phys.append((lineno, data[pos:], b""))
            break
        end = m.start()
        if data[end:end + 2] == b"\r\n":
            term = b"\r\n"
        else:
            term = data[end:end + 1]
        phys.append((lineno, data[pos:end], term))
        pos = end + len(term)

    for ln, raw, term in phys:
        if term == b"\n":
            P.add(file, ln, "crlf", "line ends with bare LF, not CRLF")
        elif term == b"\r":
            P.add(file, ln, "crlf", "line ends with bare CR, not CRLF")
        elif term == b"":
            P.add(file, ln, "crlf", "last line is not terminated by CRLF")
        if len(raw) > 75:
            P.add(file, ln, "line-length", f"line is {len(raw)} octets long (max 75 excluding CRLF; fold it)")

    # --- encoding: the unfolded stream must be UTF-8; each physical line alone too
    unfolded_bytes = re.sub(rb"(\r\n|\n|\r)[ \t]", b"", data)
    try:
        unfolded_bytes.decode("utf-8")
        stream_ok = True
    except UnicodeDecodeError as e:
        stream_ok = False
        where = unfolded_bytes[:e.start].count(b"\n") + 1
        P.add(file, None, "encoding",
              f"not valid UTF-8 (byte 0x{unfolded_bytes[e.start]:02x} in unfolded line {where}): {e.reason}")
    if stream_ok:
        for ln, raw, _ in phys:
            seg = raw[1:] if raw[:1] in (b" ", b"\t") else raw
            try:
                seg.decode("utf-8")
            except UnicodeDecodeError:
                P.add(file, ln, "fold-utf8", "folding splits a multi-octet UTF-8 character across lines")

    # --- unfold into logical lines
    logical = []  # (lineno, text)
    for ln, raw, _ in phys:
        if raw[:1] in (b" ", b"\t"):
            if not logical:
                P.add(file, ln, "content-line", "file starts with a continuation line")
                continue
            logical[-1][1].extend(raw[1:])
        else:
            logical.append((ln, bytearray(raw)))

    roots: list[Comp] = []
    stack: list[Comp] = []
    for ln, b in logical:
        s = bytes(b).decode("utf-8", errors="replace")
        if s == "":
            P.add(file, ln, "content-line", "empty line (not allowed in iCalendar)")
            continue
        ctl = CONTROL_RE.findall(s)
        if ctl:
            codes = ", ".join(sorted({f"U+{ord(c):04X}" for c in ctl}))
            P.add(file, ln, "control-char", f"raw control character(s) {codes} in content line (only HTAB allowed)")
        try:
            name, params, value = parse_content_line(s)
        except ValueError as e:
            snippet = s[:60] + ("..." if len(s) > 60 else "")
            P.add(file, ln, "content-line",
                  f"not a valid content line ({e}): {snippet!r} -- an unescaped newline in the previous value?")
            continue
        if name == "BEGIN":
            cname = value.upper()
            if cname not in KNOWN_COMPONENTS and not cname.startswith("X-"):
                P.add(file, ln, "unknown-property", f"unknown component {value!r}")
            c = Comp(cname, ln, stack[-1] if stack else None)
            if stack:
                stack[-1].children.append(c)
            else:
                if cname != "VCALENDAR":
                    P.add(file, ln, "structure", f"top-level component is {cname}, expected VCALENDAR")
                roots.append(c)
            stack.append(c)
            continue
        if name == "END":
            cname = value.upper()
            if not stack:
                P.add(file, ln, "structure", f"END:{value} without a matching BEGIN")
                continue
            if stack[-1].name != cname:
                P.add(file, ln, "structure",
                      f"END:{value} but the open component is {stack[-1].name} (BEGIN on line {stack[-1].line})")
                # recover: pop to the matching component if it is open
                if any(c.name == cname for c in stack):
                    while stack and stack[-1].name != cname:
                        stack.pop()
                    stack.pop().closed = True
                continue
            stack.pop().closed = True
            continue
        if not stack:
            P.add(file, ln, "structure", f"property {name} outside any component")
            continue
        if name not in KNOWN_PROPERTIES and not name.startswith("X-"):
            P.add(file, ln, "unknown-property",
                  f"unknown property {name!r} (not in RFC 5545/7986 and not X-) -- an unescaped newline in the previous value?")
        stack[-1].props.append(Prop(name, params, value, ln))
    for c in stack:
        P.add(file, c.line, "structure", f"BEGIN:{c.name} is never closed with END:{c.name}")

    n_events = 0
    for root in roots:
        if root.name != "VCALENDAR":
            continue
        n_events += sum(1 for _ in root.walk("VEVENT"))
        check_calendar(file, root, P)
    if not roots:
        P.add(file, None, "structure", "no BEGIN:VCALENDAR found")
    return roots, n_events


def check_calendar(file, cal: Comp, P: Problems):
    versions = cal.all("VERSION")
    if not versions:
        P.add(file, cal.line, "calendar-version", "VCALENDAR has no VERSION property (must be VERSION:2.0)")
    elif len(versions) > 1:
        P.add(file, versions[1].line, "calendar-version", "VCALENDAR has more than one VERSION")
    elif versions[0].value != "2.0":
        P.add(file, versions[0].line, "calendar-version", f"VERSION is {versions[0].value!r}, must be '2.0'")
    prodids = cal.all("PRODID")
    if not prodids:
        P.add(file, cal.line, "calendar-prodid", "VCALENDAR has no PRODID property")
    elif len(prodids) > 1:
        P.add(file, prodids[1].line, "calendar-prodid", "VCALENDAR has more than one PRODID")
    elif not prodids[0].value.strip():
        P.add(file, prodids[0].line, "calendar-prodid", "PRODID is empty")
    for p in cal.all("CALSCALE"):
        if p.value.upper() != "GREGORIAN":
            P.add(file, p.line, "value-format", f"CALSCALE is {p.value!r}; only GREGORIAN is defined")
    for name in ("CALSCALE", "METHOD"):
        if len(cal.all(name)) > 1:
            P.add(file, cal.all(name)[1].line, "cardinality", f"VCALENDAR has more than one {name}")
    if not cal.children:
        P.add(file, cal.line, "calendar-empty",
              "VCALENDAR contains no component (RFC 5545 3.4 requires at least one, e.g. a VEVENT)")

    tzids = {}
    for tz in cal.children:
        if tz.name != "VTIMEZONE":
            continue
        t = tz.all("TZID")
        if len(t) != 1:
            P.add(file, tz.line, "vtimezone", "VTIMEZONE must have exactly one TZID")
            continue
        tzids[t[0].value] = tz
        subs = [c for c in tz.children if c.name in ("STANDARD", "DAYLIGHT")]
        if not subs:
            P.add(file, tz.line, "vtimezone", f"VTIMEZONE {t[0].value} has no STANDARD or DAYLIGHT")
        for sub in subs:
            for req in ("DTSTART", "TZOFFSETFROM", "TZOFFSETTO"):
                ps = sub.all(req)
                if len(ps) != 1:
                    P.add(file, sub.line, "vtimezone", f"{sub.name} in VTIMEZONE {t[0].value} needs exactly one {req}")
                elif req != "DTSTART" and not UTCOFFSET_RE.match(ps[0].value):
                    P.add(file, ps[0].line, "vtimezone", f"{req} {ps[0].value!r} is not a UTC offset like -0500")

    # text escaping everywhere
    for comp in cal.walk():
        for p in comp.props:
            if p.name in TEXT_SINGLE and "VALUE" not in p.params:
                check_text(file, P, p, multi=False)
            elif p.name in TEXT_LIST:
                check_text(file, P, p, multi=True)
        if comp.name == "VALARM":
            for req in ("ACTION", "TRIGGER"):
                if len(comp.all(req)) != 1:
                    P.add(file, comp.line, "valarm", f"VALARM needs exactly one {req}")

    seen = {}
    for ev in cal.walk("VEVENT"):
        check_event(file, ev, P, tzids, seen)


def check_event(file, ev: Comp, P: Problems, tzids, seen):
    counts = Counter(p.name for p in ev.props)
    for name in sorted(VEVENT_ONCE):
        if counts[name] > 1:
            P.add(file, ev.all(name)[1].line, "cardinality", f"VEVENT has {counts[name]} {name} properties (at most one allowed)")
    uid = ev.first("UID")
    if uid is None:
        P.add(file, ev.line, "event-uid", "VEVENT has no UID")
    elif not uid.value.strip():
        P.add(file, uid.line, "event-uid", "VEVENT has an empty UID")
    if ev.first("DTSTAMP") is None:
        P.add(file, ev.line, "event-dtstamp", "VEVENT has no DTSTAMP")
    if ev.first("DTSTART") is None:
        P.add(file, ev.line, "event-dtstart", "VEVENT has no DTSTART")
    if counts["DTEND"] and counts["DURATION"]:
        P.add(file, ev.first("DURATION").line, "event-dtend-duration", "VEVENT has both DTEND and DURATION")

    values = {}
    for p in ev.props:
        if p.name in DATE_PROPS:
            vals = check_date_value(file, P, p, "VEVENT", tzids)
            if p.name not in values:
                values[p.name] = vals[0] if vals else None
    rid = ev.first("RECURRENCE-ID")
    if uid is not None:
        key = (uid.value, rid.value if rid else None)
        if key in seen:
            what = f"UID {uid.value!r}" + (f" with RECURRENCE-ID {rid.value}" if rid else "")
            P.add(file, uid.line, "event-uid-duplicate",
                  f"{what} already used by the VEVENT at line {seen[key]} (UIDs must be unique)")
        else:
            seen[key] = ev.line

    start, end = values.get("DTSTART"), values.get("DTEND")
    dur = ev.first("DURATION")
    if dur is not None:
        m = DURATION_RE.match(dur.value)
        if not m or dur.value.rstrip("PT+-") == "":
            P.add(file, dur.line, "value-format", f"DURATION {dur.value!r} is not a valid RFC 5545 duration")
        else:
            if m[1] == "-":
                P.add(file, dur.line, "dtend-after-dtstart", f"DURATION {dur.value!r} is negative")
            if start and start[0] == "D" and any(m[k] for k in (4, 5, 6)):
                P.add(file, dur.line, "value-format", "DTSTART is a DATE, so DURATION must be whole days or weeks")
    if start and end:
        sk, ek = start[0], end[0]
        if (sk == "D") != (ek == "D"):
            P.add(file, ev.first("DTEND").line, "dtend-after-dtstart",
                  "DTEND and DTSTART must have the same value type (both DATE or both DATE-TIME)")
        elif (sk == "F") != (ek == "F"):
            P.add(file, ev.first("DTEND").line, "dtend-after-dtstart",
                  "DTEND must be a floating time if and only if DTSTART is (RFC 5545 3.8.2.2)")
        else:
            if sk == ek and (sk != "T" or start[2] == end[2]):
                a, b = start[1], end[1]
            else:
                a, b = to_utc(start, tzids), to_utc(end, tzids)
            if a is not None and b is not None and not b > a:
                rel = "equal to" if a == b else "before"
                P.add(file, ev.first("DTEND").line, "dtend-after-dtstart",
                      f"DTEND {ev.first('DTEND').value} is {rel} DTSTART {ev.first('DTSTART').value} (must be later)")

    for rr in ev.all("RRULE"):
        parts = {}
        for part in rr.value.split(";"):
            k, _, v = part.partition("=")
            if not _ or k.upper() in parts:
                P.add(file, rr.line, "rrule", f"RRULE part {part!r} is malformed or repeated")
            parts[k.upper()] = v
        if parts.get("FREQ", "").upper() not in ("SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"):
            P.add(file, rr.line, "rrule", "RRULE has no valid FREQ")
        if "UNTIL" in parts and "COUNT" in parts:
            P.add(file, rr.line, "rrule", "RRULE has both UNTIL and COUNT")
        if "UNTIL" in parts and start:
            u = parts["UNTIL"]
            if start[0] == "D" and not DATE_RE.match(u):
                P.add(file, rr.line, "rrule", f"DTSTART is a DATE, so RRULE UNTIL must be a DATE, got {u!r}")
            elif start[0] in ("U", "T") and not (DATETIME_RE.match(u) and u.endswith("Z")):
                P.add(file, rr.line, "rrule", f"DTSTART is UTC or has a TZID, so RRULE UNTIL must be a UTC date-time (…Z), got {u!r}")
            elif start[0] == "F" and not (DATETIME_RE.match(u) and not u.endswith("Z")):
                P.add(file, rr.line, "rrule", f"DTSTART is floating, so RRULE UNTIL must be a floating date-time, got {u!r}")
    for name, allowed in (("STATUS", {"TENTATIVE", "CONFIRMED", "CANCELLED"}), ("TRANSP", {"OPAQUE", "TRANSPARENT"})):
        for p in ev.all(name):
            if p.value.upper() not in allowed:
                P.add(file, p.line, "value-format", f"{name} {p.value!r} is not one of {sorted(allowed)}")
    for name in ("SEQUENCE", "PRIORITY"):
        for p in ev.all(name):
            if not re.fullmatch(r"[+-]?\d+", p.value):
                P.add(file, p.line, "value-format", f"{name} {p.value!r} is not an integer")
    for p in ev.all("GEO"):
        if not re.fullmatch(r"[+-]?\d+(\.\d+)?;[+-]?\d+(\.\d+)?", p.value):
            P.add(file, p.line, "value-format", f"GEO {p.value!r} is not 'lat;lon'")
    for p in ev.all("URL"):
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s\"<>\\]+", p.value):
            P.add(file, p.line, "value-format", f"URL {p.value!r} is not a URI (no spaces, quotes or backslashes)")


# ------------------------------------------------------------- parsers
def norm_py(v):
    if v is None:
        return None
    if isinstance(v, dt.datetime):
        if v.tzinfo is None:
            return "F:" + v.strftime("%Y-%m-%dT%H:%M:%S")
        return "U:" + v.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(v, dt.date):
        return "D:" + v.strftime("%Y-%m-%d")
    return None


def text_value(v):
    if v is None:
        return None
    if isinstance(v, list):  # a property repeated where it may occur once
        return " | ".join(str(x) for x in v)
    return str(v)


def run_python_parsers(file, data, P):
    """Returns {parser: [event dicts]}, only for parsers that succeeded."""
    results = {}
    try:
        import icalendar
        import recurring_ical_events
        import vobject
    except ImportError as e:  # pragma: no cover
        print(f"check-ics: cannot import Python parsers ({e}); run scripts/ci/install-tools.sh", file=sys.stderr)
        sys.exit(2)

    # icalendar v7
    cals = None
    try:
        cals = icalendar.Calendar.from_ical(data, multiple=True)
        evs = []
        for cal in cals:
            for comp in cal.walk():
                for prop, msg in getattr(comp, "errors", []) or []:
                    P.add(file, None, "parser:icalendar", f"{comp.name}: {prop + ': ' if prop else ''}{msg}")
            for ev in cal.walk("VEVENT"):
                d = {}
                for k in list(ev.keys()):
                    try:
                        ev.decoded(k)
                    except Exception as e:
                        P.add(file, None, "parser:icalendar", f"VEVENT {ev.get('UID', '?')}: cannot decode {k}: {e}")
                try:
                    start = ev.decoded("DTSTART") if "DTSTART" in ev else None
                    end = None
                    if "DTEND" in ev:
                        end = ev.decoded("DTEND")
                    elif "DURATION" in ev and start is not None:
                        end = start + ev.decoded("DURATION")
                    d = {"uid": str(ev["UID"]) if "UID" in ev else None,
                         "recurrenceId": ev["RECURRENCE-ID"].to_ical().decode() if "RECURRENCE-ID" in ev else None,
                         "summary": text_value(ev.get("SUMMARY")),
                         "start": norm_py(start), "end": norm_py(end)}
                except Exception as e:
                    d = {"uid": None, "recurrenceId": None, "summary": None, "start": None, "end": None}
                    P.add(file, None, "parser:icalendar", f"VEVENT: {type(e).__name__}: {e}")
                evs.append(d)
        results["icalendar"] = evs
    except Exception as e:
        P.add(file, None, "parser:icalendar", f"failed to parse: {type(e).__name__}: {e}")

    # recurring-ical-events (built on icalendar): expand every calendar around its events
    if cals:
        for cal in cals:
            try:
                starts = []
                for ev in cal.walk("VEVENT"):
                    s = ev.decoded("DTSTART") if "DTSTART" in ev else None
                    if isinstance(s, dt.date):  # skips values icalendar could not decode
                        starts.append(s.date() if isinstance(s, dt.datetime) else s)
                if not starts:
                    continue
                lo, hi = min(starts) - dt.timedelta(days=2), max(starts) + dt.timedelta(days=400)
                occ = list(recurring_ical_events.of(cal).between(lo, hi))
                occ_uids = {str(o.get("UID")) for o in occ}
                for ev in cal.walk("VEVENT"):
                    if any(k in ev for k in ("RRULE", "RDATE", "EXDATE", "RECURRENCE-ID")) or "UID" not in ev:
                        continue
                    if str(ev["UID"]) not in occ_uids:
                        P.add(file, None, "parser:recurring-ical-events",
                              f"one-off VEVENT {str(ev['UID'])!r} does not occur when the calendar is expanded")
            except Exception as e:
                P.add(file, None, "parser:recurring-ical-events", f"expansion failed: {type(e).__name__}: {e}")

    # vobject (with its own cardinality validation)
    try:
        text = data.decode("utf-8")
        evs = []
        for comp in vobject.readComponents(text, validate=True):
            for ev in getattr(comp, "vevent_list", []):
                def val(name):
                    obj = getattr(ev, name, None)
                    return obj.value if obj is not None else None
                start, end = val("dtstart"), val("dtend")
                if end is None and start is not None and val("duration") is not None:
                    end = start + val("duration")
                for child in ev.getChildren():
                    _ = child.value
                evs.append({"uid": val("uid"), "recurrenceId": "x" if val("recurrence_id") is not None else None,
                            "summary": val("summary"), "start": norm_py(start), "end": norm_py(end)})
        results["vobject"] = evs
    except Exception as e:
        msg = str(e).replace("\n", " ")
        if isinstance(e, UnicodeDecodeError):
            msg = f"file is not valid UTF-8: {e.reason} at byte {e.start}"
        msg = re.sub(r"\s{2,}", " ", msg)
        P.add(file, None, "parser:vobject", f"{type(e).__name__}: {msg[:300]}")
    return results


def compare(file, results, P):
    """Cross-check the parsers that succeeded."""
    ordered = {k: v for k, v in results.items() if k in ("icalendar", "vobject", "ical.js")}
    counts = {k: len(v) for k, v in ordered.items()}
    if len(set(counts.values())) > 1:
        P.add(file, None, "parsers-disagree",
              "number of VEVENTs differs: " + ", ".join(f"{k}={n}" for k, n in counts.items()))
        return
    names = list(ordered)
    if names:
        for i in range(counts[names[0]]):
            for field in ("uid", "summary", "start", "end"):
                vals = {k: ordered[k][i][field] for k in names if ordered[k][i][field] is not None}
                if len(set(vals.values())) > 1:
                    uid = next((ordered[k][i]["uid"] for k in names if ordered[k][i]["uid"]), "?")
                    P.add(file, None, "parsers-disagree",
                          f"VEVENT #{i + 1} (UID {uid}) {field}: " + "; ".join(f"{k}={v!r}" for k, v in vals.items()))
    # node-ical is keyed by UID; compare master events whose UID is unique
    if "node-ical" in results and names:
        ref = ordered[names[0]]
        uid_count = Counter(e["uid"] for e in ref)
        masters = {e["uid"]: e for e in ref if e["uid"] and uid_count[e["uid"]] == 1 and e["recurrenceId"] is None}
        nodes = {e["uid"]: e for e in results["node-ical"]}
        ref_uids = {e["uid"] for e in ref if e["uid"]}
        missing = sorted(u for u in ref_uids if u not in nodes)
        if missing:
            P.add(file, None, "parsers-disagree", f"node-ical does not see UID(s) {missing} that {names[0]} sees")
        for uid, e in masters.items():
            n = nodes.get(uid)
            if not n:
                continue
            for field in ("summary", "start", "end"):
                if e[field] is not None and n[field] is not None and e[field] != n[field]:
                    P.add(file, None, "parsers-disagree",
                          f"UID {uid} {field}: {names[0]}={e[field]!r}; node-ical={n[field]!r}")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="check-ics.sh", description="Validate iCalendar files (RFC 5545).")
    ap.add_argument("files", nargs="+", help=".ics files")
    ap.add_argument("--all", action="store_true", help="print every problem (default: at most 20 per check per file)")
    ap.add_argument("-q", "--quiet", action="store_true", help="print only the summary line")
    ap.add_argument("--no-node", action="store_true", help="skip ical.js and node-ical (for debugging only)")
    args = ap.parse_args(argv)

    P = Problems(0 if args.all else 20)
    total_events = 0
    datas = {}
    for f in args.files:
        try:
            datas[f] = open(f, "rb").read()
        except OSError as e:
            print(f"check-ics: cannot read {f}: {e.strerror}", file=sys.stderr)
            return 2

    node_results = {}
    if not args.no_node:
        node = os.environ.get("NODE", "node")
        env = dict(os.environ, TZ="UTC")
        try:
            proc = subprocess.run([node, os.path.join(HERE, "ics-parse-node.mjs"), *args.files],
                                  capture_output=True, env=env, cwd=os.path.dirname(HERE), timeout=600)
        except (OSError, subprocess.TimeoutExpired) as e:
            print(f"check-ics: cannot run the JavaScript parsers: {e}", file=sys.stderr)
            return 2
        if proc.returncode != 0:
            print("check-ics: the JavaScript parsers failed to run (run scripts/ci/install-tools.sh?):\n"
                  + proc.stderr.decode(errors="replace")[-2000:], file=sys.stderr)
            return 2
        for r in json.loads(proc.stdout):
            node_results[r["file"]] = r

    for f in args.files:
        data = datas[f]
        _, n_events = scan(f, data, P)
        total_events += n_events
        results = run_python_parsers(f, data, P)
        r = node_results.get(f)
        if r:
            for name, res in r.get("parsers", {}).items():
                if res["ok"]:
                    results[name] = res["events"]
                else:
                    P.add(f, None, f"parser:{name}", f"failed to parse: {res['error']}")
        compare(f, results, P)

    out = open(os.devnull, "w") if args.quiet else sys.stdout
    k = P.emit(out)
    print(f"ics: {len(args.files)} files, {total_events} events, {k} problems")
    return 1 if k else 0


if __name__ == "__main__":
    sys.exit(main())
