"""Rule 78: Forgejo workflows pin actions to a full commit SHA."""

import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import workflow_files

RULE = 78
SUPERSEDED = False

SHA = re.compile(r"[0-9a-f]{40}")
USES = re.compile(r"""^\s*(?:-\s+)?uses\s*:\s*["']?([^\s"'#]+)""")


def check(repo: Repository) -> list[Finding]:
    findings, built = [], []
    for path in workflow_files(repo, ".forgejo/workflows"):
        for number, line in enumerate(repo.read_text(path).splitlines(), 1):
            match = USES.match(line)
            if match is None or match.group(1).startswith(("./", "docker://")):
                continue
            reference = match.group(1)
            if "${{" in reference:
                built.append(reference)
            elif not SHA.fullmatch(reference.rpartition("@")[2]):
                findings.append(Finding(f"uses {reference!r}, not pinned to a full commit SHA", path=path, line=number))
    if not findings and built:
        raise Undecidable(f"the action {built[0]!r} is built from an expression")
    return findings
