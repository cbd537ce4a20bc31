"""Rule 17: Manage the Python project with uv."""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import read_toml

RULE = 17
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    if not repo.exists("pyproject.toml"):
        return [Finding("no pyproject.toml at the repository root", path="pyproject.toml")]
    findings = []
    if "project" not in read_toml(repo, "pyproject.toml"):
        findings.append(Finding("pyproject.toml has no [project] table", path="pyproject.toml"))
    if not repo.exists("uv.lock"):
        findings.append(
            Finding("no uv.lock beside pyproject.toml (run `uv lock` and commit it)", path="uv.lock")
        )
    return findings
