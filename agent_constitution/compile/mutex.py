"""One compile at a time per repository: a lock file in `cache/`, held for the whole doit run.

doit has no locking of its own, and two overlapping builds (an editor, a pre-commit hook, two agent
sessions) would interleave their reads and writes of the same outputs. The compile tasks take the
lock when doit loads them, in the process that then runs (or forks the workers that run) every
action, and keep it until that process exits; a second build waits for it. Taking it again in the
same process is a no-op, so a test or a tool can run doit several times in one process.
"""

from __future__ import annotations

import fcntl
import os
import sys
from pathlib import Path

from agent_constitution.compile import undo
from agent_constitution.fsio import open_lock
from agent_constitution.layout import COMPILE_LOCK as LOCK

_held: dict[str, object] = {}


def hold(cache: Path) -> None:
    undo.start_run()  # every load of the tasks is a run of its own, even in one process
    path = cache / LOCK
    key = str(path.resolve())
    if key in _held:
        return
    handle = os.fdopen(open_lock(path), "rb")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(f"waiting for another build to finish ({path})", file=sys.stderr)
        fcntl.flock(handle, fcntl.LOCK_EX)
    _held[key] = handle
