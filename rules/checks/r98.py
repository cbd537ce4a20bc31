"""Rule 98: Claude Code settings grant no blanket permission."""

import json

from agent_constitution.checks.api import Finding, Repository, Undecidable

RULE = 98
SUPERSEDED = False

PATH = ".claude/settings.json"
EVERY_COMMAND = {"Bash", "Bash(*)", "Bash(:*)", "Bash(**)"}


def check(repo: Repository) -> list[Finding]:
    if not repo.exists(PATH):
        return []
    try:
        settings = json.loads(repo.read_text(PATH))
    except ValueError as error:
        raise Undecidable(f"{PATH} is not valid JSON ({error}); Claude Code ignores it") from None
    permissions = settings.get("permissions") if isinstance(settings, dict) else None
    if not isinstance(permissions, dict):
        return []
    findings = []
    if permissions.get("defaultMode") == "bypassPermissions":
        findings.append(Finding("permissions.defaultMode is bypassPermissions: no action asks first", path=PATH))
    for entry in permissions.get("allow") or []:
        if isinstance(entry, str) and entry.replace(" ", "") in EVERY_COMMAND:
            findings.append(Finding(f"permissions.allow has {entry!r}: every shell command runs unasked", path=PATH))
    return findings
