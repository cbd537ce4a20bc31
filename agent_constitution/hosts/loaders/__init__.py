"""The loader model of every agent compile serves, keyed by its `[compile] agents` name.

`views(root, agent, file)` is what that agent puts in the model's context from the repository's
instruction files when a session works on `file` (relative to the root): one `View` per product and
documented way of working (a session started at the root or in the file's folder), each with the
pieces it loads, the limit applied, what the documentation leaves open (the worst case is taken)
and the citations. One module per agent family; `common` holds what they share.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from agent_constitution.hosts.loaders import claude, codex, gemini, others, rules_engines
from agent_constitution.hosts.loaders import copilot as _copilot
from agent_constitution.hosts.loaders.common import Repo, View

LOADERS = {
    "agents-md": codex.agents_md,
    "claude-code": claude.views,
    "codex": codex.views,
    "gemini": gemini.views,
    "copilot": _copilot.views,
    "cursor": rules_engines.cursor,
    "windsurf": rules_engines.windsurf,
    "cline": others.cline,
    "roo": others.roo,
    "kiro": rules_engines.kiro,
    "opencode": others.opencode,
    "amp": others.amp,
    "continue": others.continue_,
    "grok": others.grok,
    "zed": others.zed,
    "aider": others.aider,
    "junie": others.junie,
}


def loader(agent: str, copilot: str | None = None) -> Callable[[Repo, str], list[View]]:
    """The loader model of `agent`; Copilot's with the products `[compile] copilot` serves (None: all)."""
    if agent == "copilot" and copilot is not None:
        return functools.partial(_copilot.views, layout=copilot)
    return LOADERS[agent]


def views(root: Path | Repo, agent: str, file: str, copilot: str | None = None) -> list[View]:
    repo = root if isinstance(root, Repo) else Repo(root)
    return loader(agent, copilot)(repo, file)
