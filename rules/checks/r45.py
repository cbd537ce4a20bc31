"""Rule 45: A changed check raises its rule's revision.

A rule file that does not parse as TOML, before or after the change, hides its revision: undecidable,
unless another changed check is a violation. The fix (safe) raises the revision by one above the
one before the change.
"""

import re
import tomllib

from agent_constitution.checks.api import Change, Finding, Fix, Undecidable, Unfixed

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


def fix(change: Change, findings: list[Finding]) -> list[Fix | Unfixed]:
    """Safe (a number in the rule's metadata): the rule file's `revision` one above the revision
    before the change, written through tomlkit, so every other byte of the file stays."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    by_path = {file.path: file for file in change.files}
    answers: list[Fix | Unfixed] = []
    for path in sorted({finding.path for finding in findings if finding.path}):
        file = by_path.get(path)
        try:
            text = file.new_text if file is not None else (change.root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            answers.append(Unfixed("the rule file cannot be read from the working tree", path))
            continue
        before = _revision(file.old_text) if file is not None else _revision(text)
        if not isinstance(before, int):
            answers.append(Unfixed("the rule file had no revision before the change to raise", path))
            continue
        try:
            document = tomlkit.parse(text)
        except TOMLKitError:
            answers.append(Unfixed("the rule file does not parse as TOML", path))
            continue
        document["revision"] = before + 1
        answers.append(Fix(path, tomlkit.dumps(document), note=f"revision {before} → {before + 1}"))
    return answers
