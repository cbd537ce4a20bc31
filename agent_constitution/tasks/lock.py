"""`doit lock`: resolve rules.toml against its sources and write rules.lock.

With `--locked`, `locked=1` on the command line (what `doit compile --locked` passes on) or CI set in the
environment, it fails instead of changing the lock, like `uv sync --locked`.
"""

from __future__ import annotations

import os
import sys

from doit import get_var

from agent_constitution.ruleset.inputs import task_inputs
from agent_constitution.ruleset.layout import LOCKFILE, MANIFEST
from agent_constitution.tasks.actions import reported

NAME = "lock"
GROUPS = ("compile",)


def tasks(project):
    # Without rules.toml there is nothing to do; a folder, FIFO or dangling link there is an error
    # the action reports (the other families wait for a manifest that is a file).
    if not os.path.lexists(project.root / MANIFEST):
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
    resolution, wrote = sync_lock(root, locked=True if locked else None)
    for warning in dict.fromkeys(w for segment in resolution.segments for w in segment.warnings):
        print(f"warning: {warning}", file=sys.stderr)
    if wrote:
        print(f"wrote {LOCKFILE}")
    return None
