"""Which command a repository's user has: `doit …` where the repository is wired for doit, else
`agent-constitution …` (what `uv tool install agent-constitution` puts on PATH).

A repository is wired for doit when plain `doit` finds this project's tasks in it: its `dodo.py`
loads them (`agent_constitution.loader`), or its `pyproject.toml` names the loader
(`[tool.doit] loader = "agent-constitution"`), which is what `agent-constitution init --doit` writes.
Everywhere else a message, banner, lock header or hook line that says `doit compile` names a
command the user does not have, so `spoken` rewrites it to `agent-constitution compile` (every
verb of `agent-constitution` runs the doit task of the same name).

Standard library only, like `layout`: the CLI, the doit actions and the writers of generated files
all ask it.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

DOIT = "doit"
PROG = "agent-constitution"
LOADER = "agent-constitution"
LOADER_MODULE = "agent_constitution.loader"

# `doit <verb>` where <verb> is a verb of `agent-constitution` (tasks/verbs.py); "doit's", "the
# doit task", "doit -n 4" are words about doit itself and stay. doit's own commands (`doit clean`)
# are `agent-constitution doit clean`.
_VERBS = ("compile", "check", "lock", "verify", "resolution", "resolve", "fetch", "upgrade", "outdated", "replace",
          "review", "review-ingest", "new-rule", "validate-source", "source", "site", "impact", "render")
_DOIT_COMMANDS = ("clean", "list", "forget", "info", "ignore")
_SPOKEN = re.compile(r"(?<![\w./-])doit (?=(?P<verb>" + "|".join(map(re.escape, _VERBS + _DOIT_COMMANDS)) + r")\b)")


def wired_for_doit(root: Path) -> bool:
    """Whether plain `doit` runs this project's tasks in `root` (see the module's text)."""
    dodo = root / "dodo.py"
    try:
        if dodo.is_file() and LOADER_MODULE in dodo.read_text(encoding="utf-8", errors="replace"):
            return True
    except OSError:
        pass
    try:
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    tool = data.get("tool")
    doit = tool.get("doit") if isinstance(tool, dict) else None
    return isinstance(doit, dict) and doit.get("loader") == LOADER


def command(root: Path) -> str:
    """The program a user of `root` runs the tasks with: "doit" or "agent-constitution"."""
    return DOIT if wired_for_doit(root) else PROG


def spoken(text: str, root: Path | None = None, *, program: str | None = None) -> str:
    """`text` with every `doit <verb>` naming the command the user has (`program`, else `command(root)`)."""
    program = program or (command(root) if root is not None else PROG)
    if program == DOIT:
        return text
    return _SPOKEN.sub(lambda m: f"{program} " if m["verb"] in _VERBS else f"{program} doit ", text)
