"""What `pdks init --host` says when the host's agent cannot load the repository's instructions whole.

Wiring a host's hook puts a file in its folder (`.windsurf/hooks.json`), which shows compile that the
repository uses that agent (`agents.detect`), so the next compile serves it and holds its limits
(`hosts.limits`). When the AGENTS.md files already written do not fit those limits, the user hears
it here, with the choices, rather than from every later compile.
"""

from __future__ import annotations

from pathlib import Path

from agent_constitution.hosts import AGENTS
from agent_constitution.hosts.limits import LIMITS
from agent_constitution.layout import MANIFEST


def limit_note(root: Path, host: str) -> str | None:
    """The note for the agent whose hook host is `host`, or None when its files fit (or it has no limit)."""
    name = next((agent.name for agent in AGENTS.values() if agent.hook == host), None)
    if name is None:
        return None
    limit = LIMITS[name]
    found = []
    for path in sorted(root.glob("**/AGENTS.md")):
        if ".git" in path.parts or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        shown = path.relative_to(root).as_posix()
        if limit["file_chars"] is not None and len(text) > limit["file_chars"]:
            found.append(f"{shown} has {len(text)} characters, and {name} reads at most {limit['file_chars']} of a file")
        if limit["chain_bytes"] is not None and path.parent == root and len(text.encode()) > limit["chain_bytes"]:
            found.append(f"{shown} has {len(text.encode())} bytes, and {name} loads at most {limit['chain_bytes']}")
    if not found:
        return None
    listed = ", ".join(f'"{agent}"' for agent in ("agents-md", "claude-code"))
    return (f"{'; '.join(found)} ({limit['citation']}). With this hook wired, compile serves {name} and warns on"
            f" every run that it will not load all of it. Choose: keep {name} and make the file fit (exclude rules in"
            f" {MANIFEST}, or shorten its hand-written text); or keep only the hook and list the agents compile serves"
            f" without it, e.g. [compile] agents = [{listed}] in {MANIFEST}")
