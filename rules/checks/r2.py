"""Rule 2: AGENTS.md names the manifest."""

from agent_constitution.checks.api import Finding, Repository

RULE = 2
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    if not repo.exists("rules.toml"):
        return []
    if not repo.exists("AGENTS.md"):
        return [Finding("the repository has rules.toml but no AGENTS.md to name it", path="AGENTS.md")]
    if "rules.toml" in repo.read_text("AGENTS.md"):
        return []
    return [Finding("AGENTS.md does not name the manifest rules.toml", path="AGENTS.md")]
