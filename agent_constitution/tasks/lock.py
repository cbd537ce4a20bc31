"""`doit lock`: the lock stage. Resolve rules.toml once, write rules.lock and the typed resolution.

It writes `rules.lock` when its bytes change and each segment's `cache/resolved/<key>.json` when it
changes (`agent_constitution.ruleset.resolved`), so the tasks after it (`verify`, `resolve:<segment>`,
compile) run only for what the resolution changed: their doit `file_dep` on a document decides.
Whether the run may change the lock is `ruleset.locked.locked_run`: `--locked`, `locked=1` on the
command line (what `doit compile --locked` passes on) or CI set in the environment make it fail
instead, like `uv sync --locked`. When it changes the lock it keeps the bytes it replaced, so a
compile step of the same run that fails puts them back (`compile.undo`); its up-to-date check
compares the lock with what it wrote, so a lock put back is written again on the next run, and
checks that the sources the resolution names are still in the user cache.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from doit import get_var

from agent_constitution.ruleset.inputs import task_inputs
from agent_constitution.ruleset.layout import LOCKFILE, MANIFEST, ROOT_SEGMENT
from agent_constitution.ruleset.outline import outline
from agent_constitution.ruleset.resolved import index_path, read_resolved, resolved_path
from agent_constitution.tasks.actions import reported

NAME = "lock"
GROUPS = ("compile",)
PARAMS = [{"name": "locked", "long": "locked", "type": bool, "default": False,
           "help": "fail if rules.lock would change (implied when the environment sets CI)"}]


def tasks(project):
    # Without rules.toml there is nothing to do; a folder, FIFO or dangling link there is an error
    # the action reports (the other families wait for a manifest that is a file).
    if not os.path.lexists(project.root / MANIFEST):
        return
    documents = [str(resolved_path(project.cache, path)) for path in outline(project.root / MANIFEST).segments]
    yield {
        "basename": NAME,
        "doc": "Resolve rules.toml and write rules.lock; --locked (or CI set) fails instead of changing it",
        "actions": [(_lock, [project.root, project.cache])],
        "params": PARAMS,
        "file_dep": task_inputs(project),
        "uptodate": [(_as_written, [project.root]), (_cached, [project.cache])],
        "targets": [str(project.root / LOCKFILE), *documents, str(index_path(project.cache))],
        "verbosity": 2,
    }


def _digest(root: Path) -> str | None:
    try:
        return hashlib.sha256((root / LOCKFILE).read_bytes()).hexdigest()
    except OSError:
        return None


def _as_written(task, values, root) -> bool | None:
    """Up to date only while rules.lock holds what this task last wrote (or found), and while it had
    nothing to warn about: a warning (a superseded rule in rules.toml, say) is printed on every run
    until it is dealt with, not only on the run that re-locked."""
    if values.get("warned"):
        return False
    return values["lock"] == _digest(root) if "lock" in values else None


def _cached(task, values, cache) -> bool:
    """Every source the resolution names is still in the user cache as it was resolved (the cache
    may have been cleared or altered since: then resolve, and fetch, again)."""
    from agent_constitution.errors import UserError
    from agent_constitution.sources.cache import intact

    try:
        sources = read_resolved(resolved_path(cache, ROOT_SEGMENT)).sources.values()
    except UserError:
        return False
    return all(
        Path(item.root).is_dir() if item.commit is None else intact(item.key, item.commit, item.digest, item.root)
        for item in sources
    )


@reported
def _lock(root, cache, locked):
    from agent_constitution.compile import undo
    from agent_constitution.ruleset.lock import sync_lock
    from agent_constitution.ruleset.locked import locked_run

    locked, because = locked_run(locked, get_var("locked"))
    before = (root / LOCKFILE).read_bytes() if (root / LOCKFILE).is_file() else None
    resolution, wrote = sync_lock(root, locked=locked, because=because, cache=cache)
    held_back = resolution.constitution.held_back()
    warnings = dict.fromkeys([*(w for segment in resolution.segments for w in segment.warnings), *filter(None, [held_back])])
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if wrote:
        undo.remember(cache, before)
        print(f"wrote {LOCKFILE}")
    return {"lock": _digest(root), "warned": bool(warnings)}
