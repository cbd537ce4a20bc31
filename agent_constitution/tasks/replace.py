"""`doit replace`: rewrite superseded rule references in rules.toml to their successors."""

from __future__ import annotations

from doit.exceptions import TaskFailed

from agent_constitution.errors import UserError
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


def _replace(root):
    from agent_constitution.ruleset.upgrade import replace_superseded

    try:
        replaced = replace_superseded(root)
    except UserError as error:
        return TaskFailed(str(error))
    for old, new in replaced:
        print(f"{old} → {new}")
    print("nothing to replace" if not replaced else "rules.toml updated; run `doit lock`")
    return None
