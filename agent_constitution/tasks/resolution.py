"""`resolution:<segment>`: one segment's resolution, as the lock stage wrote it to cache/resolved/<key>.json.

The lock stage resolves every segment at once; this task depends on its segment's document only
(a doit `file_dep`), so it runs when that document changed, reports the segment's warnings, and
orders the segment's compile tasks after it. It resolves nothing itself (the lock stage resolves); the
old name `resolve` stays an alias (`tasks.ALIASES`).
"""

from __future__ import annotations

import sys

from agent_constitution.ruleset.layout import MANIFEST
from agent_constitution.ruleset.outline import outline
from agent_constitution.ruleset.resolved import read_resolved, resolved_path
from agent_constitution.tasks.actions import reported

NAME = "resolution"
GROUPS = ("compile",)


def tasks(project):
    manifest = project.root / MANIFEST
    if not manifest.is_file():
        return
    # A path the manifest's schema refuses gets no task (`doit lock` reports it).
    for path in outline(manifest).segments:
        document = resolved_path(project.cache, path)
        yield {
            "basename": NAME,
            "name": path,
            "doc": f"Report the resolution of segment {path}",
            "actions": [(_report, [path, document])],
            "file_dep": [str(document)],
            "task_dep": ["lock"],
            "clean": [(_forget, [project.cache, document])],
        }


@reported
def _report(path, document):
    for warning in read_resolved(document).warnings:
        print(f"warning: {path}: {warning}", file=sys.stderr)


@reported
def _forget(cache, document):
    from agent_constitution.fsio import remove  # lazy: `doit clean` alone

    if document.exists():
        remove(document, within=cache)
