"""Rule 31: Pin actions to a full commit SHA.

Decides both halves of the text for every `uses:` of every GitHub workflow (jobs that call a
reusable workflow and steps): a reference that is not local (`./`, or `$/`, GitHub's self-repository
form, which runs this repository at the running commit) and not a `docker://` image is
pinned to a full 40-character commit SHA, and the line carries the version in a comment
(`uses: actions/checkout@<sha> # v4.2.2`; revision 5 also reads the version inside a word of the
repository's own form, `# release/v1`, `# tag=v4.2.2`). A workflow that does not parse is undecidable, unless
another one is a violation.
"""

import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import parse_yaml, workflow_files

RULE = 31
SUPERSEDED = False

SHA = re.compile(r"[0-9a-f]{40}")
# References into this repository: `./` (the checked-out workspace) and `$/` (the self-repository form,
# resolved to this repository at the running commit: github.blog/changelog/2026-07-30), and images.
LOCAL = ("./", "$/", "docker://")
# A `uses:` line: its reference, and the comment after it.
USES_LINE = re.compile(r"""^\s*(?:-\s+)?uses\s*:\s*["']?([^\s"'#]+)["']?\s*(?:#\s*(.*?))?\s*$""")
VERSION = re.compile(r"v?[0-9]+(?:\.[0-9A-Za-z-]+)*")
# Where a version stands inside a comment's word: after a path, a key or a scope, as repositories write
# it (`# release/v1`, `# tag=v4.2.2`, `# pin@v2`, `# frozen: v1.2.3` is two words already).
VERSION_PARTS = re.compile(r"[/=@:]")


def check(repo: Repository) -> list[Finding]:
    findings, unparsed = [], []
    for path in workflow_files(repo, ".github/workflows"):
        text = repo.text(path)
        workflow, error = parse_yaml(text) if text is not None else (None, "not UTF-8 text")
        if error or not isinstance(workflow, dict):
            unparsed.append(path)  # rule 28 reports it; what it would run is unknown
            continue
        for number, line in enumerate(text.splitlines(), 1):
            match = USES_LINE.match(line)
            if match is None or match.group(1).startswith(LOCAL):
                continue
            reference, comment = match.group(1), match.group(2) or ""
            if not SHA.fullmatch(reference.partition("@")[2]):
                findings.append(Finding(f"uses {reference!r}, not pinned to a full commit SHA", path=path,
                                        line=number))
            elif not _names_a_version(comment):
                findings.append(Finding(f"uses {reference!r} without the version in a comment "
                                        "(`# v4.2.2`)", path=path, line=number))
    if unparsed and not findings:
        raise Undecidable(f"{unparsed[0]} does not parse as a workflow: what it runs is unknown")
    return findings


def _names_a_version(comment: str) -> bool:
    words = comment.replace(",", " ").split()
    return any(VERSION.fullmatch(part) for word in words for part in [word, *VERSION_PARTS.split(word)])
