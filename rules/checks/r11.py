"""Rule 11: No merge conflict markers."""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import text_files

RULE = 11
SUPERSEDED = False

# Built, not written out, so that this file does not contain the markers it looks for.
MARKERS = ("<" * 7, ">" * 7)


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path, text in text_files(repo):
        for number, line in enumerate(text.splitlines(), 1):
            if line.startswith(MARKERS) and (len(line) == 7 or line[7] == " "):
                findings.append(Finding("merge conflict marker", path=path, line=number, column=1))
    return findings
