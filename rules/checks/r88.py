"""Rule 88: CI installs with pnpm install --frozen-lockfile."""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import ci_install_problems

RULE = 88
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    return ci_install_problems(repo, "pnpm")
