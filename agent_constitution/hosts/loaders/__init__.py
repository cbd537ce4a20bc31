"""The loader model of every agent compile serves, keyed by its `[compile] agents` name.

`views(root, agent, file)` is what that agent puts in the model's context from the repository's
instruction files when a session works on `file` (relative to the root): one `View` per product and
documented way of working (a session started at the root or in the file's folder), each with the
pieces it loads, the limit applied, what the documentation leaves open (the worst case is taken)
and the citations. One module per agent family; `common` holds what they share.
"""

from __future__ import annotations

from pathlib import Path

from agent_constitution.hosts.loaders import claude, codex, copilot, gemini, others, rules_engines
from agent_constitution.hosts.loaders.common import Repo, View

LOADERS = {
    "agents-md": codex.agents_md,
    "claude-code": claude.views,
    "codex": codex.views,
    "gemini": gemini.views,
    "copilot": copilot.views,
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


def views(root: Path | Repo, agent: str, file: str) -> list[View]:
    repo = root if isinstance(root, Repo) else Repo(root)
    return LOADERS[agent](repo, file)
