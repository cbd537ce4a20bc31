"""Rule 27: A test suite that pytest collects."""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import read_toml

RULE = 27
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    findings = []
    if not (repo.glob("**/test_*.py") or repo.glob("**/*_test.py")):
        findings.append(Finding("no test file (test_*.py or *_test.py)"))
    configured = (
        repo.exists("pytest.ini")
        or bool(repo.glob("**/conftest.py"))
        or (
            repo.exists("pyproject.toml")
            and "ini_options" in read_toml(repo, "pyproject.toml").get("tool", {}).get("pytest", {})
        )
    )
    if not configured:
        findings.append(
            Finding(
                "pytest is not configured: add [tool.pytest.ini_options] to pyproject.toml, "
                "a pytest.ini or a conftest.py"
            )
        )
    return findings
