"""Rule 36: Never pipe a download into a shell."""

import re

from agent_constitution.checks.api import Finding, Repository

RULE = 36
SUPERSEDED = False

FILES = (
    "**/*.sh",
    "**/*.bash",
    "**/Dockerfile*",
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


# A script without one of those names: a file whose first line runs it with a shell.
SHEBANG = re.compile(rb"#![ \t]*\S*(?:/|env[ \t]+)(?:sh|bash|zsh|dash|ksh)\b")


def check(repo: Repository) -> list[Finding]:
    paths = sorted({path for pattern in FILES for path in repo.glob(pattern)}
                   | {path for path in repo.files if _shell_script(repo, path)})
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


def _shell_script(repo: Repository, path: str) -> bool:
    try:
        with open(repo.root / path, "rb") as handle:
            return bool(SHEBANG.match(handle.read(64)))
    except OSError:
        return False
