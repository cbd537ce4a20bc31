"""Rule 87: CI installs with npm ci."""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import ci_install_problems

RULE = 87
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    return ci_install_problems(repo, "npm")
