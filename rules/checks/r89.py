"""Rule 89: CI installs with yarn install --immutable (or --frozen-lockfile on Yarn 1)."""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import ci_install_problems

RULE = 89
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    return ci_install_problems(repo, "yarn")
