"""Rule 62: Agent commits carry an attribution trailer.

A commit message without a `Co-authored-by:`, `Assisted-by:` or `Generated-by:` trailer is a
violation; one whose trailers name no agent this check knows (a person, or an agent it has not
heard of) is undecidable.
"""

import re

from agent_constitution.checks.api import Change, Finding, Undecidable

RULE = 62
SUPERSEDED = False

TRAILER = re.compile(r"^(?:co-authored-by|assisted-by|generated-by|ai-assisted-by):\s*(.+)$", re.I | re.M)
AGENTS = re.compile(r"\b(?:claude|anthropic|codex|openai|chatgpt|gpt-|gemini|google-labs|jules|copilot|cursor|aider|"
                    r"devin|windsurf|amp|opencode|goose|qwen|kiro)\b", re.I)


def check(change: Change) -> list[Finding]:
    findings, unknown = [], []
    for message in change.messages:
        subject = (message.splitlines() or [""])[0]
        names = TRAILER.findall(message)
        if not names:
            findings.append(Finding(f"commit has no attribution trailer naming the agent: {subject!r}"))
        elif not any(AGENTS.search(name) for name in names):
            unknown.append((subject, names[0]))
    if not findings and unknown:
        subject, name = unknown[0]
        raise Undecidable(f"commit {subject!r} credits {name.strip()!r}: is that the agent?")
    return findings
