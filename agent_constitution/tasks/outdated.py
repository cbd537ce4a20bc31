"""`doit outdated`: what `doit upgrade` would change (read-only)."""

from __future__ import annotations

from agent_constitution.tasks.actions import reported
from agent_constitution.ruleset.layout import MANIFEST

NAME = "outdated"
GROUPS = ()
ALONE = True  # depends on no other task: `doit outdated` creates only this one (loader._alone)


def tasks(project):
    if not (project.root / MANIFEST).is_file():
        return
    yield {
        "basename": NAME,
        "doc": "List every source (locked, what `doit upgrade` takes, the newest beyond its range) and the rule"
        " revisions upgrade would change; writes nothing",
        "actions": [(_outdated, [project.root])],
        "uptodate": [False],
        "verbosity": 2,
    }


@reported
def _outdated(root):
    from agent_constitution.ruleset.upgrade import plan_upgrade  # lazy: action only (pydantic, resolvelib: 167 ms)

    upgrade = plan_upgrade(root)
    print(upgrade.table())
    print(upgrade.report())
