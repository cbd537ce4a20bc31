"""The host hook files written whole rather than merged: Cline's executables (one per event, in
`.clinerules/hooks/`) and Kiro CLI's `.kiro/hooks/<name>.json`, shared by compile and `pdks init`.

A file of ours is recognised by its mark (the script banner, the hook name), and a file without it
is somebody's own: never overwritten (unless `pdks init --command` forces it), never removed.
"""

from __future__ import annotations

import json
from pathlib import Path

from agent_constitution.fsio import write_atomic
from agent_constitution.hosts import HOSTS

SCRIPT_BANNER = "# written by agent-constitution (pdks init, compile)"  # marks a hook script as ours
JUDGE = "the covenant judge as this host's hook"


def hook_script(command: str, what: str = JUDGE) -> str:
    return f"#!/bin/sh\n{SCRIPT_BANNER}: {what}\n{command}\n"


def write_hook_script(path: Path, command: str, *, force: bool = False, what: str = JUDGE) -> bool:
    """Write the executable hook file a host runs by its name (Cline's `.clinerules/hooks/PreToolUse`);
    True when it wrote. A file of someone else's (no banner) is never overwritten, unless `force`."""
    text = hook_script(command, what)
    if path.exists():
        current = path.read_text(encoding="utf-8", errors="replace")
        if current == text:
            return False
        if SCRIPT_BANNER not in current and not force:
            return False  # somebody's own hook: theirs to keep
    write_atomic(path, text)
    path.chmod(0o755)
    return True


HOOK_NAME = "agent-constitution-covenant"  # marks the hooks of a whole hooks file as ours


def hooks_file(host: str, command: str) -> str:
    """A whole hooks file (Kiro CLI 3's `{"version": "v1", "hooks": [...]}`) holding the judge."""
    spec = HOSTS[host]
    entries = [{"name": HOOK_NAME, "trigger": event, **({"matcher": matcher} if matcher else {}),
                "action": {"type": "command", "command": command}, **spec.handler, "enabled": True}
               for event, matcher in spec.events]
    return json.dumps({"version": "v1", "hooks": entries}, indent=2) + "\n"


def ours_whole(path: Path) -> bool:
    """A hooks file whose every hook is named as ours."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    hooks = data.get("hooks") if isinstance(data, dict) else None
    return isinstance(hooks, list) and bool(hooks) and all(isinstance(h, dict) and h.get("name") == HOOK_NAME
                                                           for h in hooks)


def write_hooks_file(path: Path, host: str, command: str, *, force: bool = False) -> bool:
    """Write the whole hooks file of `host`; True when it wrote. A file of someone else's is never
    overwritten, unless `force`."""
    text = hooks_file(host, command)
    if path.exists():
        if path.read_text(encoding="utf-8", errors="replace") == text:
            return False
        if not ours_whole(path) and not force:
            return False  # somebody's own hooks: theirs to keep
    write_atomic(path, text)
    return True


def remove_hook_script(path: Path) -> bool:
    """Delete the hook file when we wrote it; True when it did."""
    if path.is_file() and SCRIPT_BANNER in path.read_text(encoding="utf-8", errors="replace"):
        path.unlink()
        return True
    return False
