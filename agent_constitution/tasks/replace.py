"""`doit replace`: rewrite superseded rule references in rules.toml to their successors (the stage is
`ruleset.upgrade.replace_superseded`; a `UserError` it raises is the task's failure)."""

from __future__ import annotations

from agent_constitution.tasks.actions import reported
from agent_constitution.ruleset.layout import MANIFEST

NAME = "replace"
GROUPS = ()


def tasks(project):
    if not (project.root / MANIFEST).is_file():
        return
    yield {
        "basename": NAME,
        "doc": "Replace superseded rules in rules.toml with their successors (comments and layout kept)",
        "actions": [(_replace, [project.root])],
        "uptodate": [False],
        "verbosity": 2,
    }


@reported
def _replace(root):
    from agent_constitution.ruleset.upgrade import replace_superseded  # lazy: action only (pydantic, resolvelib: 167 ms)

    replaced = replace_superseded(root)
    for old, new in replaced:
        print(f"{old} → {new}")
    print("nothing to replace" if not replaced else f"{MANIFEST} updated; run `doit lock`")
