"""Rule 74: Workflows pass actionlint.

Runs `actionlint -format '{{json .}}'`, which prints a JSON list of errors (`message`, `filepath`,
`line`, `column`) and exits 1 when there are any. A missing `actionlint`, a timeout or output that is
not that list is undecidable.
"""

import json

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import run_tool, workflow_files

RULE = 74
SUPERSEDED = False


def check(repo: Repository) -> list[Finding]:
    if not workflow_files(repo, ".github/workflows"):
        return []
    status, out, err = run_tool(["actionlint", "-format", "{{json .}}"], repo.root)
    if status not in (0, 1):
        raise Undecidable(f"actionlint failed (exit {status}): {err.strip()[-300:]}")
    try:
        errors = json.loads(out or "[]")
    except ValueError:
        raise Undecidable("actionlint printed no JSON list") from None
    if not isinstance(errors, list):
        raise Undecidable("actionlint printed no JSON list")
    return [Finding(f"actionlint [{e.get('kind', 'error')}]: {e.get('message', '')}", path=e.get("filepath"),
                    line=e.get("line") or None, column=e.get("column") or None)
            for e in errors if isinstance(e, dict)]
