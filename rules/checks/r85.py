"""Rule 85: Manage the JavaScript project with pnpm (the shared logic is `_helpers.js_lockfile_problems`)."""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import js_lockfile_problems

RULE = 85
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    return js_lockfile_problems(repo, "pnpm", ("pnpm-workspace.yaml",))
