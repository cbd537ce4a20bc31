"""`doit verify`: report the constitution binding and each source's version the lock stage checked.

The lock stage fails on a binding or a version range that does not hold; this task reads what it
resolved (the root segment's document) and says what holds, so it runs only when that changed.
"""

from __future__ import annotations

import os

from agent_constitution import console
from agent_constitution.ruleset.layout import MANIFEST, ROOT_SEGMENT
from agent_constitution.ruleset.resolved import read_resolved, resolved_path
from agent_constitution.tasks.actions import reported

NAME = "verify"
GROUPS = ("compile",)


def tasks(project):
    if not (project.root / MANIFEST).is_file():
        return
    document = resolved_path(project.cache, ROOT_SEGMENT)
    yield {
        "basename": NAME,
        "doc": "Check the constitution binding and that each source's version satisfies every declared range",
        "actions": [(_verify, [project.root, document])],
        "file_dep": [str(document)],
        "task_dep": ["lock"],
        "verbosity": 2,
    }


@reported
def _verify(root, document):
    resolved = read_resolved(document)
    constitution = resolved.constitution
    console.detail(
        f"constitution {constitution.source} {constitution.edition} revision {constitution.revision}:"
        " inside every enabled rule's range"
    )
    for name, item in sorted(resolved.sources.items()):
        if item.commit is None:
            at = f"folder {os.path.relpath(item.key, root)}"
        else:
            at = item.version or item.commit[:12]
        console.detail(f"source {name}: {at}")
    return None
