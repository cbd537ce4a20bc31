"""`doit verify`: the constitution binding and the cross-source version ranges hold for the lock."""

from __future__ import annotations

from agent_constitution.tasks.actions import reported
from agent_constitution.ruleset.inputs import task_inputs
from agent_constitution.ruleset.layout import LOCKFILE, MANIFEST

NAME = "verify"
GROUPS = ("compile",)


def tasks(project):
    if not (project.root / MANIFEST).is_file():
        return
    yield {
        "basename": NAME,
        "doc": "Check the constitution binding and that each source's version satisfies every declared range",
        "actions": [(_verify, [project.root])],
        "file_dep": [*task_inputs(project), str(project.root / LOCKFILE)],
        "verbosity": 2,
    }


@reported
def _verify(root):
    from agent_constitution.ruleset.lock import read_lock
    from agent_constitution.ruleset.resolve import resolve

    resolution = resolve(root, read_lock(root))
    constitution = resolution.constitution
    print(
        f"constitution {constitution.source} {constitution.edition} revision {constitution.revision}:"
        " inside every enabled rule's range"
    )
    for key, item in sorted(resolution.fetched.items(), key=lambda kv: resolution.world.names[kv[0]]):
        at = item.version or (item.snapshot.commit or item.snapshot.digest.removeprefix("sha256:"))[:12]
        print(f"source {resolution.world.names[key]}: {at}")
    return None
