"""Rule 13: Generated files are not committed, except lockfiles."""

import re
from posixpath import basename

from agent_constitution.checks.api import Finding, Repository

from ._helpers import text_files

RULE = 13
SUPERSEDED = False

NOT_EDIT = (
    "do not edit",
    "don't edit",
    "do not modify",
    "not intended for manual editing",
    "不要编辑",
    "请勿编辑",
    "不要手改",
)
LOCKFILE = re.compile(r"(^|[._-])lock([._-]|$)")


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path, text in text_files(repo):
        if _is_lockfile(path):
            continue
        head = "\n".join(text.splitlines()[:5]).lower()
        marked = "@generated" in head or (
            ("generated" in head or "生成" in head) and any(n in head for n in NOT_EDIT)
        )
        if marked:
            findings.append(
                Finding("marked as generated in its first lines, yet not ignored by git", path=path, line=1)
            )
    return findings


def _is_lockfile(path: str) -> bool:
    name = basename(path).lower()
    return bool(LOCKFILE.search(name)) or name == "go.sum"
