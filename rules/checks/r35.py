"""Rule 35: No .env files in the tree."""

from posixpath import basename

from agent_constitution.checks.api import Finding, Repository

RULE = 35
SUPERSEDED = False

TEMPLATES = {".env.example", ".env.sample", ".env.template"}


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path in repo.files:
        name = basename(path)
        if (name == ".env" or name.startswith(".env.")) and name not in TEMPLATES:
            findings.append(Finding(f"{name} holds local settings and credentials; ignore it", path=path))
    return findings
