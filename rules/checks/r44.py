"""Rule 44: Rules are never deleted."""

import re

from agent_constitution.checks.api import Change, Finding

RULE = 44
SUPERSEDED = False

RULE_FILE = re.compile(r"(?:^|.*/)rules/[0-9]+\.toml")


def check(change: Change) -> list[Finding]:
    findings = []
    for file in change.files:
        if file.old_path is None or not RULE_FILE.fullmatch(file.old_path) or file.new_path == file.old_path:
            continue
        what = "deletes" if file.new_path is None else f"renames it to {file.new_path} and so"
        findings.append(Finding(f"the change {what} removes rule file {file.old_path}", path=file.old_path))
    return findings
