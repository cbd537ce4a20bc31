"""Rule 86: Manage the JavaScript project with yarn (the shared logic is `_helpers.js_lockfile_problems`)."""

from agent_constitution.checks.api import Finding, Repository

from ._helpers import js_lockfile_problems

RULE = 86
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    return js_lockfile_problems(repo, "yarn")
