#!/usr/bin/env python3
"""Checks every relative link of the documentation: README.md, CONTRIBUTING.md and docs/.

    python3 scripts/check-links.py [FILE.md ...]

A link `[text](path)` must lead to a file or folder of the repository, and `path#anchor` or
`#anchor` to a heading of that Markdown file, with the id GitHub gives it. Links with a scheme
(https:, mailto:) are left alone, as are links in code (fenced blocks, `spans`). Prints each
broken link as FILE:LINE and exits 1 if there is one. Run by .ci/run and by the test
tests/it/guide.rs; lychee would do it, but is not installable everywhere CI runs.
"""

import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def prose_lines(text):
    """(line number, line) of the lines outside fenced code blocks."""
    fenced = None
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if match:
            if fenced is None:
                fenced = match.group(1)
            elif match.group(1) == fenced:
                fenced = None
            continue
        if fenced is None:
            yield number, line


def heading_text(markdown):
    """A heading's text as GitHub renders it: code spans, links and emphasis undone."""
    text = CODE_SPAN.sub(lambda m: m.group(2).strip(), markdown)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    return re.sub(r"(\*\*|__|\*|~~)", "", text)


def slug(text):
    """GitHub's heading id (github-slugger): lower case; letters, marks, numbers, `_`, `-`
    and spaces kept, anything else dropped; each space a `-`."""
    kept = []
    for char in text.lower():
        category = unicodedata.category(char)
        if char in " -" or category[0] in "LMN" or category == "Pc":
            kept.append(char)
    return "".join(kept).replace(" ", "-")


def anchors(path, cache={}):
    """The ids of a Markdown file's headings, a repeated one numbered as GitHub does."""
    if path not in cache:
        ids, seen = set(), {}
        for _, line in prose_lines(path.read_text(encoding="utf-8")):
            match = HEADING.match(line)
            if not match:
                continue
            base = slug(heading_text(match.group(2)))
            count = seen.get(base, 0)
            seen[base] = count + 1
            ids.add(base if count == 0 else f"{base}-{count}")
        cache[path] = ids
    return cache[path]


def broken_links(path):
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        # Code spans are blanked, keeping the columns, so no link is read inside one.
        line = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for match in LINK.finditer(line):
            target = match.group(1)
            if SCHEME.match(target):
                continue
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            where = f"{path.relative_to(ROOT)}:{number}"
            if file_part and not linked.exists():
                yield f"{where}: {target}: no such file"
            elif not linked.is_relative_to(ROOT):
                yield f"{where}: {target}: leads out of the repository"
            elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                yield f"{where}: {target}: no heading has the id #{anchor}"


def main(arguments):
    files = [Path(a).resolve() for a in arguments] or [
        ROOT / "README.md",
        ROOT / "CONTRIBUTING.md",
        *sorted((ROOT / "docs").rglob("*.md")),
    ]
    problems = [problem for path in files for problem in broken_links(path)]
    for problem in problems:
        print(problem)
    checked = ", ".join(str(f.relative_to(ROOT)) for f in files)
    if problems:
        print(f"{len(problems)} broken link(s) in {checked}", file=sys.stderr)
        return 1
    print(f"every relative link leads somewhere: {checked}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
