"""Rule 36: Never pipe a download into a shell."""

import re

from agent_constitution.checks.api import Finding, Repository

RULE = 36
SUPERSEDED = False

FILES = (
    "**/*.sh",
    "**/*.bash",
    "**/Dockerfile",
    "**/Dockerfile.*",
    "**/*.Dockerfile",
    "**/Makefile",
    "**/*.mk",
    ".github/workflows/*",
    ".gitlab-ci.yml",
    ".forgejo/workflows/*",
    ".ci/*",
)
PIPE = re.compile(
    r"\b(?:curl|wget)\b[^|\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:sh|bash|zsh|dash|python[0-9.]*|sudo)\b"
)


def check(repo: Repository) -> list[Finding]:
    paths = sorted({path for pattern in FILES for path in repo.glob(pattern)})
    findings = []
    for path in paths:
        try:
            text = repo.read_text(path)
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            match = PIPE.search(line)
            if match:
                findings.append(
                    Finding(
                        "a download is piped into an interpreter",
                        path=path,
                        line=number,
                        column=match.start() + 1,
                    )
                )
    return findings
