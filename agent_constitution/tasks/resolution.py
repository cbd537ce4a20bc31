"""`resolution`: the segments' resolutions, as the lock stage wrote them to cache/resolved/<key>.json.

The lock stage resolves every segment at once; this one task reports the warnings of each segment
whose document changed since it last ran (by the document's inode, modification time and size: the
lock stage replaces a document by renaming a new file into place) and orders the compile tasks after
the resolution. One task for every segment, not one each: doit's cost per task would multiply by
segments. It resolves nothing itself (the lock stage resolves); the old name `resolve` stays an
alias (`tasks.OLD_NAMES`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from agent_constitution.console import settings
from agent_constitution.ruleset.layout import MANIFEST
from agent_constitution.ruleset.outline import outline
from agent_constitution.ruleset.resolved import read_resolved, resolved_path
from agent_constitution.tasks.actions import MEMBERS, reported

NAME = "resolution"
GROUPS = ("compile",)


def tasks(project):
    manifest = project.root / MANIFEST
    if not manifest.is_file():
        return
    # A path the manifest's schema refuses gets no document (`doit lock` reports it).
    documents = {path: resolved_path(project.cache, path) for path in outline(manifest).segments}
    yield {
        "basename": NAME,
        "doc": "Report the warnings of each segment's resolution that changed",
        "actions": [(_report, [documents])],
        "uptodate": [(_unchanged, [documents])],
        "task_dep": ["lock"],
        "clean": [(_forget, [project.cache, documents])],
        "meta": {MEMBERS: True},
        "verbosity": 2,
    }


def stamps(documents: dict[str, Path]) -> dict[str, list | None]:
    """segment → its document's [inode, modification time, size], or None while there is none."""
    found: dict[str, list | None] = {}
    for path, document in documents.items():
        try:
            status = os.stat(document)
        except OSError:
            found[path] = None
        else:
            found[path] = [status.st_ino, status.st_mtime_ns, status.st_size]
    return found


# The stamps this process's up-to-date check took and those of the last run, for the action.
_seen: dict[str, tuple[dict, dict]] = {}


def _unchanged(task, values, documents) -> bool:
    now = stamps(documents)
    before = values.get("stamps") if isinstance(values.get("stamps"), dict) else {}
    _seen[task.name] = (now, before)
    return now == before and all(stamp is not None for stamp in now.values())


@reported
def _report(documents):
    now, before = _seen.pop(NAME, None) or (stamps(documents), {})
    for path, document in documents.items():
        if now[path] is not None and now[path] == before.get(path):
            continue
        # The mark a task of this segment's own would print (`.  resolution:<segment>`).
        if settings.show_tasks:
            print(f".  {NAME}:{path}", flush=True)
        for warning in read_resolved(document).warnings:
            print(f"warning: {path}: {warning}", file=sys.stderr)
    return {"stamps": now}


@reported
def _forget(cache, documents):
    from agent_constitution.fsio import remove  # lazy: `doit clean` alone

    for document in documents.values():
        if os.path.exists(document):
            remove(document, within=cache)
