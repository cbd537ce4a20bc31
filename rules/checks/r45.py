"""Rule 45: A changed check raises its rule's revision.

A rule file that does not parse as TOML, before or after the change, hides its revision: undecidable,
unless another changed check is a violation.
"""

import re
import tomllib

from agent_constitution.checks.api import Change, Finding, Undecidable

RULE = 45
SUPERSEDED = False

CHECK_FILE = re.compile(r"((?:.*/)?rules/)checks/r([0-9]+)\.py")


def check(change: Change) -> list[Finding]:
    by_path = {file.path: file for file in change.files}
    findings, unread = [], []
    for file in change.files:
        match = CHECK_FILE.fullmatch(file.path)
        if not match or file.old_text is None or file.new_text is None or file.old_text == file.new_text:
            continue
        rule_path = f"{match.group(1)}{match.group(2)}.toml"
        rule_file = by_path.get(rule_path)
        if rule_file is None:
            before = after = None
        else:
            before, after = _revision(rule_file.old_text), _revision(rule_file.new_text)
            if _UNREADABLE in (before, after):
                unread.append(rule_path)
                continue
        if before is None or after is None or after <= before:
            findings.append(
                Finding(f"{file.path} changed but the revision in {rule_path} did not go up", path=rule_path)
            )
    if unread and not findings:
        raise Undecidable(f"{unread[0]} does not parse as TOML: its revision is unknown")
    return findings


_UNREADABLE = "unreadable"


def _revision(text: str | None) -> int | str | None:
    """The rule file's revision, None when it has none, _UNREADABLE when it is not TOML."""
    try:
        revision = tomllib.loads(text or "").get("revision")
    except tomllib.TOMLDecodeError:
        return _UNREADABLE
    return revision if isinstance(revision, int) else None
