"""Run the constitution's checks (seed 001; docs/constitution.md numbers them) as part of `doit check`."""

from __future__ import annotations

import sys

from agent_constitution.edition import CONSTITUTION
from agent_constitution.edition.failures import warning
from agent_constitution.tasks.actions import reported

NAME = "constitution-checks"
GROUPS = ("check",)


def tasks(project):
    if not (project.root / CONSTITUTION).is_dir():
        return
    # No file_dep: a check is a judgment of the current files and always runs.
    yield {
        "basename": NAME,
        "doc": "Check the constitution's sources and that generated/ is up to date (constitution-build --check).",
        "actions": [(_check, [project.root])],
        "verbosity": 2,
    }


@reported
def _check(root):
    from agent_constitution.edition.build import build  # lazy: action only (pydantic, pygit2: 120 ms)

    for found in build(root, check=True).warnings:
        print(warning(found), file=sys.stderr)
