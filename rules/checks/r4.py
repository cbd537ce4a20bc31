"""Rule 4: CLAUDE.md imports AGENTS.md."""

from posixpath import dirname, join

from agent_constitution.checks.api import Finding, Repository

RULE = 4
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path in repo.glob("**/CLAUDE.md"):
        if not repo.exists(join(dirname(path), "AGENTS.md")):
            continue
        if not any(line.strip() == "@AGENTS.md" for line in repo.read_text(path).splitlines()):
            findings.append(
                Finding("CLAUDE.md has an AGENTS.md beside it but no line `@AGENTS.md`", path=path)
            )
    return findings
