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
from agent_constitution.covenant import budget
from agent_constitution.covenant.adapters.common import hook, refuse
from agent_constitution.covenant.plan import CONFIG_NAMES

HOSTS = {"claude-code": claude_code, "codex": codex, "grok": grok}
USAGE = "usage: pdks hook claude-code|codex|grok"


def find_root(start: Path) -> Path:
    """The nearest directory at or above `start` holding a config, else `start` itself.

    A host may start the hook in any subdirectory of the session; judging from there would find no
    config, fail closed on every call and leave a log in that subdirectory. Without a config
    anywhere above, the run fails closed in `start` as `covenant check` would."""
    for directory in (start, *start.parents):
        if any((directory / name).is_file() for name in CONFIG_NAMES):
            return directory
    return start


def root_for(host: str) -> Path:
    """Claude Code names the project in `$CLAUDE_PROJECT_DIR`; otherwise search up from the cwd."""
    named = os.environ.get("CLAUDE_PROJECT_DIR") if host == "claude-code" else None
    return Path(named) if named else find_root(Path(os.getcwd()))


def main(argv: list[str]) -> int:
    """`argv` is what follows `pdks hook`: exactly one host name."""
    if len(argv) != 1 or argv[0] not in HOSTS:
        print(USAGE, file=sys.stderr)
        return 2
    module = HOSTS[argv[0]]
    budget.start(budget.SESSION_BUDGET)
    try:
        try:
            raw = budget.read_stdin(sys.stdin.buffer, budget.PAYLOAD_LIMIT).decode("utf-8", errors="replace")
        except budget.OverBudget as error:
            return refuse(module.PREFIX, str(error), root_for(argv[0]), context=argv[0] == "claude-code")
        host = argv[0]
        context = host == "claude-code"
        if context and grok.is_envelope(_parsed(raw)):
            module, host, context = grok, "grok", False
        return hook(module.PREFIX, module.translate, raw, root_for(argv[0]), host, module.MUTATING_DEFAULTS,
                    context=context)
    finally:
        budget.stop()


def _parsed(raw: str):
    try:
        return json.loads(raw)
    except ValueError:
        return None  # the adapter refuses it with its own sentence
