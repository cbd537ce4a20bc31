"""Rule 60: Commit subjects do not end with a period.

A subject ending in `.` or `。` is a violation, unless its last word is an abbreviation (`etc.`,
`e.g.`, `v2.`) or an ellipsis: whether that is a sentence's period the reviewer decides.
"""

import re

from agent_constitution.checks.api import Change, Finding, Undecidable

RULE = 60
SUPERSEDED = False

ABBREVIATION = re.compile(r"(?:\.\.\.|…|\b(?:etc|e\.g|i\.e|vs|approx|incl|cf)\.|\b[A-Za-z]\.)$")


def check(change: Change) -> list[Finding]:
    findings, unsure = [], []
    for message in change.messages:
        subject = (message.splitlines() or [""])[0].rstrip()
        if not subject.endswith((".", "。")):
            continue
        if ABBREVIATION.search(subject):
            unsure.append(subject)
        else:
            findings.append(Finding(f"commit subject ends with a period: {subject!r}"))
    if not findings and unsure:
        raise Undecidable(f"commit subject ends with an abbreviation or an ellipsis, maybe not a period: {unsure[0]!r}")
    return findings
