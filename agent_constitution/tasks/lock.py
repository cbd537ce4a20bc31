"""`doit lock`: resolve rules.toml against its sources and write rules.lock.

With `--locked`, `locked=1` on the command line (what `doit compile --locked` passes on) or CI set in the
environment, it fails instead of changing the lock, like `uv sync --locked`. Before it changes the
lock it checks that every compile step would succeed on the new resolution (`compile.build.preflight`):
a compile that is going to fail leaves rules.lock as it was.
"""

from __future__ import annotations

import sys
from pathlib import Path

from doit import get_var

from agent_constitution.ruleset.inputs import task_inputs
from agent_constitution.ruleset.layout import LOCKFILE, MANIFEST
from agent_constitution.tasks.actions import reported

NAME = "lock"
GROUPS = ("compile",)


def tasks(project):
    if not (project.root / MANIFEST).is_file():
        return
    yield {
        "basename": NAME,
        "doc": "Resolve rules.toml and write rules.lock; --locked (or CI set) fails instead of changing it",
        "actions": [(_lock, [project.root])],
        "params": [{"name": "locked", "long": "locked", "type": bool, "default": False,
                    "help": "fail if rules.lock would change (implied when the environment sets CI)"}],
        "file_dep": task_inputs(project),
        "targets": [str(project.root / LOCKFILE)],
        "verbosity": 2,
    }


@reported
def _lock(root, locked):
    from agent_constitution.ruleset.lock import sync_lock

    # `locked=1` (what `doit compile --locked` passes on to its members) means the same as --locked.
    if (get_var("locked") or "").lower() in ("1", "true", "yes"):
        locked = True
    resolution, wrote = sync_lock(root, locked=True if locked else None, verify=lambda new: _preflight(root, new))
    for warning in dict.fromkeys(w for segment in resolution.segments for w in segment.warnings):
        print(f"warning: {warning}", file=sys.stderr)
    if wrote:
        print(f"wrote {LOCKFILE}")
    return None


def _preflight(root: Path, resolution) -> None:
    """Before the lock changes: would every compile step succeed on the new resolution? (No write.)"""
    import json

    from agent_constitution.compile.build import preflight
    from agent_constitution.compile.inputs import Resolved
    from agent_constitution.compile.layout import lefthook_file
    from agent_constitution.ruleset.models import parse
    from agent_constitution.ruleset.resolve import resolved_json
    from agent_constitution.tasks.agents import jobs, read_settings

    settings, segments = read_settings(root / MANIFEST)
    resolutions = {
        segment.path: parse(Resolved, json.loads(resolved_json(resolution, segment.path)), root / MANIFEST)
        for segment in resolution.segments
    }
    lefthook = lefthook_file(root)
    preflight(root, resolutions, [job for job in jobs(segments) if job.path in resolutions], settings,
              lefthook.name if lefthook else None, locked=False)
