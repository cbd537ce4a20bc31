"""Rule 72: CI runs on pull requests.

Reads the triggers (`on:`) of every GitHub workflow: one with `pull_request` passes. With none, the
repository is a violation, unless every workflow is started only by another (`workflow_call`,
`workflow_run`): then which events run them is elsewhere, and the check is undecidable. No
workflow at all is rule 28's to report.
"""

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import parse_yaml, workflow_files

RULE = 72
SUPERSEDED = False

CALLED = {"workflow_call", "workflow_run"}


def check(repo: Repository) -> list[Finding]:
    paths = workflow_files(repo, ".github/workflows")
    triggers = []
    for path in paths:
        workflow, error = parse_yaml(repo.read_text(path))
        if error:
            raise Undecidable(f"{path} is not valid YAML: {error}")
        on = workflow.get("on", workflow.get(True)) if isinstance(workflow, dict) else None
        events = {on} if isinstance(on, str) else set(on) if isinstance(on, (list, dict)) else set()
        if "pull_request" in events:
            return []
        triggers.append(events)
    if not paths:
        raise Undecidable("no GitHub Actions workflow (rule 28 reports that)")
    if all(events and events <= CALLED for events in triggers):
        raise Undecidable("every workflow is started by another workflow; which events start those is not here")
    return [Finding("no workflow runs on pull_request: proposed changes are merged unchecked",
                    path=".github/workflows")]
