"""The old task names stay aliases of the renamed ones (docs/structure.md, "One meaning per name"):
`doit resolve` runs `resolution`, `doit source` runs `validate-source` with its
options, and `agent-constitution source` / `resolve` run the new verbs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from doit.loader import generate_tasks

from agent_constitution.commands import parser
from agent_constitution.loader import namespace
from agent_constitution.project import Project
from agent_constitution.tasks import OLD_NAMES

PROJECT = Path(__file__).resolve().parents[1]


def _tasks(creator_name: str) -> dict:
    names = namespace(Project(PROJECT))
    creator = names[f"task_{creator_name}"]
    return {task.name: task for task in generate_tasks(creator_name, creator(), creator.__doc__)}


def test_the_old_names_are_the_renamed_families():
    assert OLD_NAMES == {"resolution": "resolve", "validate-source": "source"}


def test_an_alias_is_the_same_task_under_its_old_name():
    # This repository is a rule source with a manifest: both families make their tasks here.
    # One task for every segment's resolution (tasks/resolution.py), so the alias is one task too.
    resolution = _tasks("resolution")
    assert set(resolution) == {"resolution", "resolve"}
    new, old = resolution["resolution"], resolution["resolve"]
    assert old.file_dep == new.file_dep and old.task_dep == new.task_dep
    assert [str(action) for action in old.actions] == [str(action) for action in new.actions]
    assert old.doc == "the old name of `resolution`"

    validation = _tasks("validate-source")
    new, old = validation["validate-source"], validation["source"]
    assert [param["name"] for param in old.params] == [param["name"] for param in new.params] == ["base"]
    assert old.file_dep == new.file_dep
    assert "new-rule" in validation and "source:new-rule" not in validation


def test_the_old_verbs_run_the_new_ones():
    assert parser.parse(["source", "--base", "HEAD"]).verb == "validate-source"
    assert parser.parse(["source", "--base", "HEAD"]).options == {"base": "HEAD"}
    invocation = parser.parse(["resolve"])
    assert invocation.verb == "resolution" and invocation.words == ()


def test_an_alias_outside_its_repository_says_why_under_the_name_asked_for(tmp_path):
    (tmp_path / "dodo.py").write_text("from agent_constitution.loader import namespace\n\nglobals().update(namespace())\n")
    for old, new in (("source", "validate-source"), ("resolve", "resolution")):
        done = subprocess.run([sys.executable, "-m", "doit", old], cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 1 and f"error: `{old}` does not apply here" in done.stderr
        assert f"`{new}`" not in done.stderr
    # `doit check` reaches `validate-source` in every repository, and its alias stays out of the way.
    done = subprocess.run([sys.executable, "-m", "doit", "check"], cwd=tmp_path, capture_output=True, text=True)
    assert "does not apply" not in done.stderr and "does not exist" not in done.stderr
