"""Render the constitution's editions (seed 001) into its generated/ folder."""

from __future__ import annotations

import sys

from doit.tools import config_changed

from agent_constitution.edition import CONSTITUTION
from agent_constitution.edition.failures import warning
from agent_constitution.edition.plan import code_digest, intact, plan
from agent_constitution.tasks.actions import reported

NAME = "render"
GROUPS = ("compile",)


def tasks(project):
    if not (project.root / CONSTITUTION).is_dir():
        return
    dependencies, targets = plan(project.root)
    yield {
        "basename": NAME,
        "doc": "Render constitution/<edition>/ into its generated/ folder (full and agent edition per language).",
        "actions": [(_render, [project.root])],
        "file_dep": dependencies,
        "targets": [str(path) for path in targets],
        "uptodate": [(intact, [targets]), config_changed({"code": code_digest()})],
        "clean": True,
        "verbosity": 2,
    }


@reported
def _render(root):
    from agent_constitution.edition.build import build  # lazy: action only (pydantic, pygit2: 120 ms)

    result = build(root)
    for path in result.written:
        print(f"updated {path}")
    for found in result.warnings:
        print(warning(found), file=sys.stderr)
