"""`"chat.useClaudeMdFile": false` in `.vscode/settings.json`, while Copilot in VS Code is served
(`copilot` enabled, `[compile] copilot = "editor"`) and the root `CLAUDE.md` is `AGENTS.md`
(`claude = "link"`): otherwise VS Code loads the root rules twice (hosts/loaders/copilot.py).

The member and how its ownership is read: `hosts/vscode_settings.py`. One job while wanted;
`agents:prune` takes the member out when it no longer is (`remove`), and `doit clean agents` too.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from agent_constitution.compile.outputs.base import Job, Plan, Step
from agent_constitution.compile.strict import refuse_change, refuse_removal
from agent_constitution.fsio import confine, remove as remove_file, write_atomic
from agent_constitution.readers import read_cached, read_text

FILE = ".vscode/settings.json"  # hosts.vscode_settings.FILE (imported when a step runs)


def wanted(plan: Plan) -> bool:
    settings = plan.settings
    return "copilot" in settings.agents and settings.copilot == "editor" and settings.claude == "link"


class VSCodeSettings:
    name = "vscode-settings"

    def jobs(self, plan: Plan) -> list[Job]:
        if not wanted(plan):
            return []
        return [Job(name=FILE, doc=f'Set "chat.useClaudeMdFile": false in {FILE} (CLAUDE.md is AGENTS.md: '
                                   "Copilot in VS Code reads it once)", subject=FILE, before_root=True)]

    def run(self, plan: Plan, job: Job, *, locked: bool) -> Step:
        from agent_constitution.hosts import vscode_settings  # lazy: the JSONC editing would add 4 ms to a no-op compile

        return _edit(plan.root, vscode_settings.added, locked=locked, create=True)

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool:
        return bool(values) and values.get("file") == _sha(plan.root)

    def clean(self, plan: Plan, job: Job) -> list[str]:
        return list(remove(plan.root).removed)


def remove(root: Path, *, locked: bool = False) -> Step:
    """Take compile's member out of `.vscode/settings.json` (the file and `.vscode` too when compile
    created them and nothing else is left); a file without it is left as it is."""
    from agent_constitution.hosts import vscode_settings  # lazy: the JSONC editing would add 4 ms to a no-op compile

    return _edit(root, vscode_settings.removed, locked=locked, create=False)


def _edit(root: Path, change, *, locked: bool, create: bool) -> Step:
    path = confine(root / FILE, root)
    before = read_text(path, FILE) if os.path.lexists(path) else None
    if before is None and not create:
        return Step()
    after = change(before)  # a UserError for a malformed file, before anything is written
    if after == before:
        return Step(extra={"file": _sha(root)})
    if after is None:
        refuse_removal(path, locked=locked)
        remove_file(path, within=root)
        if not any(path.parent.iterdir()):
            path.parent.rmdir()
        return Step(removed=(FILE,), extra={"file": None})
    refuse_change(path, before, after, locked=locked, edited=False)
    if before is None:
        path.parent.mkdir(exist_ok=True)
    write_atomic(path, after, within=root)
    return Step(written=(FILE,), extra={"file": _sha(root)})


def _sha(root: Path) -> str | None:
    # read_cached: a FIFO or a device in the file's place is no file (a plain read would wait on it).
    data = read_cached(root / FILE)
    return None if data is None else hashlib.sha256(data).hexdigest()


OUTPUT = VSCodeSettings()
