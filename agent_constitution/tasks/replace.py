"""`doit replace`: rewrite superseded rule references in rules.toml to their successors (commands/replace.py)."""

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
    from agent_constitution.commands.replace import replace

    replace(root)
