"""`pdks hook <host>`: a host's pre-tool payload on stdin, a verdict the way that host reads one.

The hosts are listed once, in the host table (`agent_constitution.hosts.HOSTS`); each has a module here that
translates its documented payload into the input IR and says how it answers (`ANSWER`, default:
exit 0 lets the call run, exit 2 blocks with the reason on stderr, as Claude Code, Codex, Grok and
Gemini CLI read it). Only the named host's module is imported. A payload the adapter cannot
translate fails closed with upstream's `adapter-<host> failed before spawn: <reason>` line.

Grok runs the hooks of `.claude/settings.json` too: a payload of Grok's shape arriving at
`claude-code` is judged by the Grok adapter, never refused for its shape. What the judge says when
it lets a call through (advisories) reaches the model on Claude Code as JSON `additionalContext`
(stderr at exit 0 reaches only the transcript view).
"""

from __future__ import annotations

import os
import sys

from agent_constitution.covenant import budget
from agent_constitution.covenant.adapters import grok
from agent_constitution.covenant.adapters.common import EXIT_CODE, hook, parse_payload, refuse
from agent_constitution.hosts import HOSTS
from agent_constitution.layout import CONFIG_NAMES


def usage() -> str:
    """The usage line, from the host table."""
    return "usage: pdks hook " + "|".join(HOSTS)


def adapter(host: str):
    """The adapter module of a host named in the host table."""
    name = HOSTS[host].adapter_module
    __import__(name)  # not importlib: its package costs the hot path an import of its own
    return sys.modules[name]


def find_root(start: str) -> str:
    """The nearest directory at or above `start` holding a config, else `start` itself.

    A host may start the hook in any subdirectory of the session; judging from there would find no
    config, fail closed on every call and leave a log in that subdirectory. Without a config
    anywhere above, the run fails closed in `start` as `covenant check` would."""
    directory = start
    while True:
        if any(os.path.isfile(os.path.join(directory, name)) for name in CONFIG_NAMES):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return start
        directory = parent


def root_for(host: str) -> str:
    """The folder the host's variable names (Claude Code's `$CLAUDE_PROJECT_DIR`, Gemini CLI's
    `$GEMINI_PROJECT_DIR`: `Host.project`); otherwise search up from the cwd."""
    variable = HOSTS[host].project
    named = os.environ.get(variable) if variable else None
    return os.path.normpath(named) if named else find_root(os.getcwd())


def main(argv: list[str]) -> int:
    """`argv` is what follows `pdks hook`: exactly one host name."""
    if len(argv) != 1 or argv[0] not in HOSTS:
        print(usage(), file=sys.stderr)
        return 2
    host = argv[0]
    module = adapter(host)
    answer = getattr(module, "ANSWER", EXIT_CODE)
    root = root_for(host)
    if host != "claude-code":  # only Claude Code's adapter (and Grok's) is written without pathlib (~8 ms)
        from pathlib import Path

        root = Path(root)
    budget.start(budget.SESSION_BUDGET)
    try:
        try:
            raw = budget.read_stdin(sys.stdin.buffer, budget.PAYLOAD_LIMIT).decode("utf-8", errors="replace")
        except budget.OverBudget as error:
            return refuse(module.PREFIX, str(error), root, context=host == "claude-code", answer=answer)
        context = host == "claude-code"
        translate = module.translate
        if context:
            if grok.is_envelope(_parsed(raw)):
                module, host, context = grok, "grok", False
                translate = grok.translate
            else:  # the hook reads the transcript only if the judge asks for it
                translate = _deferred(module.translate)
        return hook(module.PREFIX, translate, raw, root, host, module.MUTATING_DEFAULTS, context=context,
                    answer=answer)
    finally:
        budget.stop()


def _deferred(translate):
    """`translate` reading the transcript only when the judge asks for it."""
    return lambda raw, root, mutating=(): translate(raw, root, mutating, deferred=True)


def _parsed(raw: str):
    try:
        return parse_payload(raw)
    except Exception:
        return None  # the adapter refuses it with its own sentence
