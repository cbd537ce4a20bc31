"""Rule 41: A rule's text has three to five sentences."""

import re

from agent_constitution.checks.api import Finding, Repository

from ._helpers import rule_files

RULE = 41
SUPERSEDED = False

CODE = re.compile(r"`[^`]*`")
# A sentence ends at . ! ? followed by whitespace or the end, or at a full-width 。！？.
END = re.compile(r"[.!?](?=\s|$)|[。！？]")


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path, rule in rule_files(repo):
        for language, text in (rule.get("text") or {}).items():
            count = sentences(text)
            if not 3 <= count <= 5:
                findings.append(Finding(f"the {language} text has {count} sentences (3 to 5)", path=path))
    return findings


def sentences(text: str) -> int:
    return len(END.findall(CODE.sub("code", text.strip())))
