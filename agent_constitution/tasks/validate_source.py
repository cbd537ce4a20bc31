"""Author a rule source: `doit new-rule --title T --parent P`, and `doit validate-source [--base REF]` (in
`check`; the old name `doit source` stays an alias).

Active only in a rule source repository (one with rules/source.toml).
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path

from doit.exceptions import TaskFailed

from agent_constitution.layout import RULES, SOURCE_CONFIG
from agent_constitution.tasks.actions import reported

NAME = "validate-source"
GROUPS = ("check",)
NEW_RULE_PARAMS = [
    {"name": "title", "long": "title", "type": str, "default": "", "help": "the title (first language)"},
    {"name": "parent", "long": "parent", "type": str, "default": "", "help": "a domain, group or rule id"},
]
PARAMS = [{"name": "base", "long": "base", "type": str, "default": "", "help": "the commit to compare with"}]


def tasks(project):
    root = project.root
    if not (root / SOURCE_CONFIG).is_file():
        return
    yield {
        "basename": "new-rule",
        "doc": "Write a trial rule with the next free ID: --title TEXT --parent DOMAIN|GROUP|RULE",
        "actions": [(_new_rule, [root])],
        "params": NEW_RULE_PARAMS,
        "uptodate": [False],
        "verbosity": 2,
    }
    inputs = _rule_files(root)
    yield {
        "basename": NAME,
        "doc": "Validate this rule source against its files and its git history (--base REF: compare revisions)",
        "actions": [(_validate, [root])],
        "params": PARAMS,
        "file_dep": inputs,
        # A new commit changes what the history allows, a deleted file what is compared with it; a --base
        # makes the run depend on another commit, so it always runs.
        "uptodate": [_history_unchanged(root, inputs), _no_base],
        "verbosity": 2,
    }


def _rule_files(root: Path) -> list[str]:
    files = []
    for here, dirs, names in os.walk(root / RULES):
        dirs[:] = [name for name in dirs if name != "__pycache__"]
        files.extend(os.path.join(here, name) for name in names)
    return sorted(files)


def _history_unchanged(root: Path, inputs: list[str]):
    """An up-to-date check on HEAD and the list of files, evaluated only when the task is asked for:
    opening the repository (pygit2) is not paid by every doit command."""

    def check(task, values) -> bool:
        from agent_constitution.authoring.history import open_history  # lazy: only when the task is asked for (pygit2: 33 ms)

        history = open_history(root)
        head = history.head() if history is not None else None
        state = {"head": str(head.id) if head else "", "files": inputs}
        task.value_savers.append(lambda: {"source-history": state})
        return values.get("source-history") == state

    return check


def _no_base(task, values) -> bool:
    # doit fills `options` only for a task named on the command line, not for a group's member.
    return not (task.options or {}).get("base")


@reported
def _new_rule(root: Path, title: str, parent: str):
    """Write a trial (or draft) rule with the next free ID (the stage is `authoring.new_rule`)."""
    from agent_constitution.authoring import new_rule as stage  # lazy: action only (pydantic: 126 ms)

    path = stage.new_rule(root, title=title, parent=parent, today=datetime.datetime.now(datetime.UTC).date())
    status = "draft" if 'status = "draft"' in path.read_text(encoding="utf-8") else "trial"
    print(f"wrote {path.relative_to(root)} (a {status} rule): write its text, then run `doit check`")


def _validate(root: Path, base: str):
    from agent_constitution.authoring.validate import trial_rules, validate_source  # lazy: action only (pydantic: 134 ms)

    problems = validate_source(root, base=base or None)
    if problems:
        return TaskFailed("\n".join(str(problem) for problem in problems))
    for line in trial_rules(root, datetime.datetime.now(datetime.UTC).date()):
        print(line)
    return None
