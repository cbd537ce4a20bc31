"""`pdks hook claude-code|codex|grok`: a host's PreToolUse payload on stdin, a verdict as the exit code.

Exit 0 lets the tool call run; exit 2 blocks it, with the reason on stderr (what Claude Code, Codex
and Grok show the agent). A payload the adapter cannot translate fails closed with upstream's
`adapter-<host> failed before spawn: <reason>` line.

Grok runs the hooks of `.claude/settings.json` too: a payload of Grok's shape arriving at
`claude-code` is judged by the Grok adapter, never refused for its shape. What the judge says when
it lets a call through (advisories) reaches the model on Claude Code as JSON `additionalContext`
(stderr at exit 0 reaches only the transcript view).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from agent_constitution.covenant.adapters import claude_code, codex, grok
from agent_constitution.covenant.adapters.common import hook

HOSTS = {"claude-code": claude_code, "codex": codex, "grok": grok}
USAGE = "usage: pdks hook claude-code|codex|grok"


def root_for(host: str) -> Path:
    if host == "claude-code":
        return claude_code.project_root()
    return Path(os.getcwd())


def main(argv: list[str]) -> int:
    """`argv` is what follows `pdks hook`: exactly one host name."""
    if len(argv) != 1 or argv[0] not in HOSTS:
        print(USAGE, file=sys.stderr)
        return 2
    module = HOSTS[argv[0]]
    raw = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    context = argv[0] == "claude-code"
    if context and grok.is_envelope(_parsed(raw)):
        module, context = grok, False
    return hook(module.PREFIX, module.translate, raw, root_for(argv[0]), context=context)


def _parsed(raw: str):
    try:
        return json.loads(raw)
    except ValueError:
        return None  # the adapter refuses it with its own sentence
