"""Rule 18: Manage the Python project with Poetry."""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import read_toml

RULE = 18
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    if not repo.exists("pyproject.toml"):
        return [Finding("no pyproject.toml at the repository root", path="pyproject.toml")]
    findings = []
    pyproject = read_toml(repo, "pyproject.toml")
    backend = pyproject.get("build-system", {}).get("build-backend")
    if "poetry" not in pyproject.get("tool", {}) and backend != "poetry.core.masonry.api":
        findings.append(
            Finding(
                "pyproject.toml has neither [tool.poetry] nor the Poetry build backend",
                path="pyproject.toml",
            )
        )
    if not repo.exists("poetry.lock"):
        findings.append(
            Finding(
                "no poetry.lock beside pyproject.toml (run `poetry lock` and commit it)", path="poetry.lock"
            )
        )
    return findings
