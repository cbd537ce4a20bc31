"""Rule 45: A changed check raises its rule's revision."""

import re
import tomllib

from agent_constitution.checks.api import Change, Finding

RULE = 45
SUPERSEDED = False

CHECK_FILE = re.compile(r"((?:.*/)?rules/)checks/r([0-9]+)\.py")


def check(change: Change) -> list[Finding]:
    by_path = {file.path: file for file in change.files}
    findings = []
    for file in change.files:
        match = CHECK_FILE.fullmatch(file.path)
        if not match or file.old_text is None or file.new_text is None or file.old_text == file.new_text:
            continue
        rule_path = f"{match.group(1)}{match.group(2)}.toml"
        rule_file = by_path.get(rule_path)
        before, after = (
            (_revision(rule_file.old_text), _revision(rule_file.new_text)) if rule_file else (None, None)
        )
        if rule_file is None or before is None or after is None or after <= before:
            findings.append(
                Finding(f"{file.path} changed but the revision in {rule_path} did not go up", path=rule_path)
            )
    return findings


def _revision(text: str | None) -> int | None:
    try:
        revision = tomllib.loads(text or "").get("revision")
    except tomllib.TOMLDecodeError:
        return None
    return revision if isinstance(revision, int) else None
