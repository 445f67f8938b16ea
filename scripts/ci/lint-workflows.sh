#!/usr/bin/env bash
# scripts/ci/lint-workflows.sh: the GitHub workflows and the action (actionlint, zizmor), the
# shell scripts (shellcheck) and the documentation's links. Needs scripts/ci/install-tools.sh.
#
# Linted with the repository's own workflows: the one `vatcar-site init` writes, as
# docs/github-actions.md shows it (tests/it/init.rs holds the two identical), and the same
# with its announce job uncommented, as a webmaster would.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/target/ci/venv/bin:$PATH"
out=target/ci/workflows
rm -rf "$out" && mkdir -p "$out"
python3 - docs/github-actions.md "$out/site.yml" "$out/announce.yml" <<'PY'
import sys
text = open(sys.argv[1], encoding="utf-8").read()
start = text.index("```yaml\n# .github/workflows/site.yml\n") + len("```yaml\n")
workflow = text[start:text.index("\n```\n", start) + 1]
open(sys.argv[2], "w", encoding="utf-8").write(workflow)
# The announce job, uncommented: "# " removed in front of each of its lines.
lines = workflow.split("\n")
first = lines.index("  # announce:")
end = first
while end < len(lines) and lines[end].startswith("  #"):
    end += 1
job = [("  " + line[3:].removeprefix(" ")).rstrip() for line in lines[first:end]]
open(sys.argv[3], "w", encoding="utf-8").write("\n".join(lines[:first] + job + lines[end:]))
PY
grep -q '^  announce:$' "$out/announce.yml"
workflows=(.github/workflows/*.yml "$out/site.yml" "$out/announce.yml")
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
