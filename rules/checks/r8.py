"""Rule 8: Commit subjects are at most 50 characters. Superseded by rule 9."""

from agent_constitution.checks.api import Change, Finding

RULE = 8
SUPERSEDED = True

LIMIT = 50


def check(change: Change) -> list[Finding]:
    findings = []
    for message in change.messages:
        subject = message.splitlines()[0] if message.strip() else ""
        if len(subject) > LIMIT:
            findings.append(
                Finding(f"commit subject has {len(subject)} characters (at most {LIMIT}): {subject!r}")
            )
    return findings
