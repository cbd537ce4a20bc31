"""Rule 11: No merge conflict markers."""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import text_files

RULE = 11
SUPERSEDED = False

# Built, not written out, so that this file does not contain the markers it looks for.
MARKERS = ("<" * 7, ">" * 7)


def check(repo: Repository) -> list[Finding]:
    return [finding for path, text in text_files(repo) for finding in check_file(path, text)]


def check_file(path: str, text: str) -> list[Finding]:
    """One file's findings; the runner calls this per file and keeps the answer for an unchanged one."""
    if not any(marker in text for marker in MARKERS):
        return []
    return [Finding("merge conflict marker", path=path, line=number, column=1)
            for number, line in enumerate(text.splitlines(), 1)
            if line.startswith(MARKERS) and (len(line) == 7 or line[7] == " ")]
