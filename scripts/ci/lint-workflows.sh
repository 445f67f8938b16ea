#!/usr/bin/env bash
# scripts/ci/lint-workflows.sh: the GitHub workflows and the action (actionlint, zizmor), the
# shell scripts (shellcheck) and the documentation's links. Needs scripts/ci/install-tools.sh.
#
# Linted with the repository's own workflows: the one `vatcar-site init` writes, as
# docs/github-actions.md shows it (tests/it/init.rs holds the two identical), its translations
# as `init --language es|fr|nl` writes them, and each with its announce job uncommented, as a
# webmaster would. The translations' placeholders (src/cmd/init/<code>/workflow.yml) are
# filled with what init put in the English one's: the guide's block against
# src/cmd/init/workflow.yml says what each became, with no binary to build.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/target/ci/venv/bin:$PATH"
out=target/ci/workflows
rm -rf "$out" && mkdir -p "$out"
python3 - docs/github-actions.md src/cmd/init "$out" <<'PY'
import re, sys
from pathlib import Path
guide, init, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
text = open(guide, encoding="utf-8").read()
start = text.index("```yaml\n# .github/workflows/site.yml\n") + len("```yaml\n")
english = text[start:text.index("\n```\n", start) + 1]

# What init wrote for each @PLACEHOLDER@ of the English template.
pattern, seen = "", set()
for piece in re.split(r"(@[A-Z]+@)", (init / "workflow.yml").read_text(encoding="utf-8")):
    name = piece.strip("@")
    if re.fullmatch(r"@[A-Z]+@", piece):
        pattern += f"(?P={name})" if name in seen else f"(?P<{name}>[^\n]+?)"
        seen.add(name)
    else:
        pattern += re.escape(piece)
found = re.fullmatch(pattern, english)
if not found:
    sys.exit(f"{guide}'s workflow is not src/cmd/init/workflow.yml filled in: copy `vatcar-site init`'s into it")
values = found.groupdict()

def filled(template):
    def value(placeholder):
        if placeholder[1] not in values:
            sys.exit(f"{template}: {placeholder[0]} is not in src/cmd/init/workflow.yml")
        return values[placeholder[1]]
    return re.sub(r"@([A-Z]+)@", value, template.read_text(encoding="utf-8"))

def announce(name, workflow):
    """The announce job, uncommented: "# " removed in front of each of its lines."""
    lines = workflow.split("\n")
    if "  # announce:" not in lines:
        sys.exit(f"{name}: no line `  # announce:` starts the commented announce job")
    first = lines.index("  # announce:")
    end = first
    while end < len(lines) and lines[end].startswith("  #"):
        end += 1
    job = [("  " + line[3:].removeprefix(" ")).rstrip() for line in lines[first:end]]
    return "\n".join(lines[:first] + job + lines[end:])

workflows = {"site": (guide, english)}
for template in sorted(init.glob("*/workflow.yml")):
    workflows[f"site-{template.parent.name}"] = (template, filled(template))
if len(workflows) < 4:
    sys.exit(f"{init}/*/workflow.yml: {len(workflows) - 1} translations, where es, fr and nl have one each")
for name, (source, workflow) in workflows.items():
    (out / f"{name}.yml").write_text(workflow, encoding="utf-8")
    (out / f"{name}-announce.yml").write_text(announce(source, workflow), encoding="utf-8")
PY
workflows=(.github/workflows/*.yml "$out"/*.yml)
# actionlint checks action.yml's inputs through release.yml's `uses: ./`, and with shellcheck
# on PATH the scripts of every `run:` step.
actionlint "${workflows[@]}"
# Offline: no GitHub API. Findings of low severity (the `./` of `uses: ./`) are left out.
zizmor --offline --color never --min-severity medium "${workflows[@]}" action.yml
shellcheck .ci/run scripts/*.sh scripts/action/*.sh scripts/ci/*.sh tests/action/*.sh \
  tests/browser/*.sh tests/validators/*.sh
# GitHub's heading ids, checked offline.
python3 scripts/check-links.py
echo "lint-workflows: actionlint, zizmor, shellcheck and the documentation's links are clean"
