"""Rule 1: AGENTS.md at the repository root."""

from agent_constitution.checks.api import Finding, Repository

RULE = 1
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    if repo.exists("AGENTS.md"):
        return []
    if (repo.root / "AGENTS.md").is_file():
        return [Finding("AGENTS.md exists but git ignores it", path="AGENTS.md")]
    return [Finding("no AGENTS.md at the repository root", path="AGENTS.md")]
