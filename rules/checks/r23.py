"""Rule 23: pyproject.toml declares requires-python."""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import read_toml

RULE = 23
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path in repo.glob("**/pyproject.toml"):
        project = read_toml(repo, path).get("project")
        if isinstance(project, dict) and "requires-python" not in project:
            findings.append(Finding("[project] has no requires-python", path=path))
    return findings
