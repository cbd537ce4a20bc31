"""Rule 107: go.sum is committed beside go.mod."""

import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

RULE = 107
SUPERSEDED = False

REQUIRE = re.compile(r"^\s*require\b", re.M)


def check(repo: Repository) -> list[Finding]:
    findings, workspace = [], []
    whole = repo.repository
    for path in repo.glob("**/go.mod"):
        if not REQUIRE.search(repo.read_text(path)):
            continue
        folder = path.rpartition("/")[0]
        if repo.exists(f"{folder}/go.sum" if folder else "go.sum"):
            continue
        if whole.exists("go.work") and whole.exists("go.work.sum"):
            workspace.append(path)
        else:
            findings.append(Finding("go.mod requires modules but no go.sum is committed beside it", path=path))
    if not findings and workspace:
        raise Undecidable(f"{workspace[0]} has no go.sum, but the go.work workspace may record the sums")
    return findings
