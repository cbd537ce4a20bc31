"""Rule 9: Commit subjects are at most 72 characters (supersedes rule 8; the final period is rule 60's)."""

from agent_constitution.checks.api import Change, Finding

RULE = 9
SUPERSEDED = False

LIMIT = 72


def check(change: Change) -> list[Finding]:
    findings = []
    for message in change.messages:
        subject = message.splitlines()[0] if message.strip() else ""
        if len(subject) > LIMIT:
            findings.append(
                Finding(f"commit subject has {len(subject)} characters (at most {LIMIT}): {subject!r}")
            )
    return findings
