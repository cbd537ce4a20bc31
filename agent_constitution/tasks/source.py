"""Author a rule source: `doit new-rule --title T --parent P`, and `doit source [--base REF]` (in `check`).

Active only in a rule source repository (one with rules/source.toml).
"""

from __future__ import annotations

import datetime
from pathlib import Path

from doit.exceptions import TaskFailed
from doit.tools import config_changed

from agent_constitution.errors import UserError

NAME = "source"
GROUPS = ("check",)


def tasks(project):
    root = project.root
    if not (root / "rules" / "source.toml").is_file():
        return
    from agent_constitution.sources.history import open_history

    yield {
        "basename": "new-rule",
        "doc": "Write a trial rule with the next free ID: --title TEXT --parent DOMAIN|GROUP|RULE",
        "actions": [(_new_rule, [root])],
        "params": [
            {"name": "title", "long": "title", "type": str, "default": "", "help": "the title (first language)"},
            {"name": "parent", "long": "parent", "type": str, "default": "", "help": "a domain, group or rule id"},
        ],
        "uptodate": [False],
        "verbosity": 2,
    }
    history = open_history(root)
    head = history.head() if history is not None else None
    inputs = sorted(str(path) for path in (root / "rules").rglob("*") if _is_input(path))
    yield {
        "basename": NAME,
        "doc": "Validate this rule source against its files and its git history (--base REF: compare revisions)",
        "actions": [(_validate, [root])],
        "params": [{"name": "base", "long": "base", "type": str, "default": "", "help": "the commit to compare with"}],
        "file_dep": inputs,
        # A new commit changes what the history allows, a deleted file what is compared with it; a --base
        # makes the run depend on another commit, so it always runs.
        "uptodate": [config_changed({"head": str(head.id) if head else "", "files": inputs}), _no_base],
        "verbosity": 2,
    }


def _is_input(path: Path) -> bool:
    return path.is_file() and "__pycache__" not in path.parts


def _no_base(task, values) -> bool:
    # doit fills `options` only for a task named on the command line, not for a group's member.
    return not (task.options or {}).get("base")


def _new_rule(root: Path, title: str, parent: str):
    from agent_constitution.sources.new_rule import new_rule

    try:
        path = new_rule(root, title=title, parent=parent, today=datetime.datetime.now(datetime.UTC).date())
    except UserError as error:
        return TaskFailed(str(error))
    print(f"wrote {path.relative_to(root)} (a trial rule): write its text, then run `doit check`")
    return None


def _validate(root: Path, base: str):
    from agent_constitution.sources.validate import validate_source

    problems = validate_source(root, base=base or None)
    if problems:
        return TaskFailed("\n".join(str(problem) for problem in problems))
    return None
