"""Run the constitution's checks (seed 001; docs/constitution.md numbers them) as part of `doit check`."""

from __future__ import annotations

from doit.exceptions import TaskFailed

from agent_constitution.errors import UserError

NAME = "constitution-checks"
GROUPS = ("check",)


def tasks(project):
    from agent_constitution.edition import CONSTITUTION

    if not (project.root / CONSTITUTION).is_dir():
        return
    # No file_dep: a check is a judgment of the current files and always runs.
    yield {
        "basename": NAME,
        "doc": "Check the constitution's sources and that generated/ is up to date (constitution-build --check).",
        "actions": [(_check, [project.root])],
        "verbosity": 2,
    }


def _check(root):
    from agent_constitution.edition.build import build

    try:
        build(root, check=True)
    except UserError as error:
        return TaskFailed(str(error))
