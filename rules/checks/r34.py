"""Rule 34: No secrets in the tree."""

import re

from agent_constitution.checks.api import Finding, Repository

from ._helpers import text_files

RULE = 34
SUPERSEDED = False

# Formats with a fixed, recognisable shape; a finding names the kind, never the secret.
PATTERNS = {
    "private key": re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
    "AWS access key id": re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "GitHub token": re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{82})\b"),
    "GitLab token": re.compile(r"\bglpat-[A-Za-z0-9_-]{20}\b"),
    "Slack token": re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    "Anthropic API key": re.compile(r"\bsk-ant-[A-Za-z0-9_-]{32,}"),
    "OpenAI API key": re.compile(
        r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b|\bsk-proj-[A-Za-z0-9_-]{40,}"
    ),
}


def check(repo: Repository) -> list[Finding]:
    findings = []
    for path, text in text_files(repo):
        for number, line in enumerate(text.splitlines(), 1):
            for kind, pattern in PATTERNS.items():
                match = pattern.search(line)
                if match:
                    findings.append(
                        Finding(f"{kind} in the tree", path=path, line=number, column=match.start() + 1)
                    )
    return findings
