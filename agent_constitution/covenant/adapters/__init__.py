"""`pdks hook claude-code|codex|grok`: a host's PreToolUse payload on stdin, a verdict as the exit code.

Exit 0 lets the tool call run; exit 2 blocks it, with the reason on stderr (what Claude Code, Codex
and Grok show the agent). A payload the adapter cannot translate fails closed with upstream's
`adapter-<host> failed before spawn: <reason>` line.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from agent_constitution.covenant.adapters import claude_code, codex, grok
from agent_constitution.covenant import budget
from agent_constitution.covenant.adapters.common import hook, refuse

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
    budget.start(budget.SESSION_BUDGET)
    try:
        try:
            raw = budget.read_stdin(sys.stdin.buffer, budget.PAYLOAD_LIMIT)
        except budget.OverBudget as error:
            return refuse(module.PREFIX, str(error), root_for(argv[0]))
        return hook(module.PREFIX, module.translate, raw.decode("utf-8", errors="replace"), root_for(argv[0]))
    finally:
        budget.stop()
