"""What a failed compile puts back: `rules.lock` as it was before the run.

`doit compile` runs `lock` before the steps that write what agents read, and any of those can still
fail (a part file in the way, a hook file that is not JSON, a rule naming a provision the
constitution lacks, a link out of the repository). The lock must then stay as it was. So the lock
task keeps the bytes it replaced in `cache/lock-before.json`, tagged with the run (an id each doit
process sets when it loads the compile tasks, which its workers inherit), and a compile step that
fails puts them back; a record of another run is never used. The root `AGENTS.md` (the index of
every other file) is written after every other step succeeded, so it has nothing to put back.

Standard library only: the lock task imports it while doit creates tasks.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

from agent_constitution.fsio import remove, write_atomic

RUN = "AGENT_CONSTITUTION_RUN"
RECORD = "lock-before.json"
LOCKFILE = "rules.lock"


def start_run() -> None:
    """A new id for this doit run, inherited by the worker processes it forks."""
    os.environ[RUN] = uuid.uuid4().hex


def remember(cache: Path, before: bytes | None) -> None:
    """Called by the lock task before it replaces rules.lock: what was there (None: no lock yet)."""
    text = None if before is None else before.decode("utf-8", errors="surrogateescape")
    write_atomic(cache / RECORD, json.dumps({"run": os.environ.get(RUN), "lock": text}) + "\n", within=cache)


def put_back(root: Path, cache: Path) -> bool:
    """Restore the lock this run replaced, if it replaced one; returns whether it did."""
    try:
        data = json.loads((cache / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    remove(cache / RECORD, within=cache)
    if not isinstance(data, dict) or not os.environ.get(RUN) or data.get("run") != os.environ[RUN]:
        return False
    before = data.get("lock")
    if before is None:
        remove(root / LOCKFILE, within=root, missing_ok=True)
    else:
        write_atomic(root / LOCKFILE, before.encode("utf-8", errors="surrogateescape"), within=root)
    return True
