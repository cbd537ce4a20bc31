"""Rule 10: A blank line separates the commit subject from the body."""

from agent_constitution.checks.api import Change, Finding

RULE = 10
SUPERSEDED = False


def check(change: Change) -> list[Finding]:
    findings = []
    for message in change.messages:
        lines = message.splitlines()
        if len(lines) > 1 and lines[1].strip():
            findings.append(Finding(f"no blank line after the commit subject {lines[0]!r}"))
    return findings
