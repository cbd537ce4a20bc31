"""Rule 102: Gemini CLI settings do not accept tool calls unasked."""

import json
import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

RULE = 102
SUPERSEDED = False

PATH = ".gemini/settings.json"
COMMENTS = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.S)


def check(repo: Repository) -> list[Finding]:
    if not repo.exists(PATH):
        return []
    try:
        settings = json.loads(COMMENTS.sub(lambda m: m.group(1) or "", repo.read_text(PATH)))
    except ValueError as error:
        raise Undecidable(f"{PATH} is not valid JSON: {error}") from None
    if not isinstance(settings, dict):
        return []
    findings = []
    tools = settings.get("tools") if isinstance(settings.get("tools"), dict) else {}
    if settings.get("autoAccept") is True or tools.get("autoAccept") is True:
        findings.append(Finding("autoAccept is true: tool calls run without confirmation", path=PATH))
    general = settings.get("general") if isinstance(settings.get("general"), dict) else {}
    for value in (settings.get("approvalMode"), general.get("defaultApprovalMode"), tools.get("approvalMode")):
        if isinstance(value, str) and value.lower() == "yolo":
            findings.append(Finding("the default approval mode is yolo: every tool call runs unasked", path=PATH))
    return findings
