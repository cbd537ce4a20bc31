"""`agents:preflight`: what the resolutions alone show is wrong is refused before anything is written."""

from __future__ import annotations

import pytest

from agent_constitution.compile.layout import Settings
from agent_constitution.compile.outputs import preflight, segment
from agent_constitution.compile.outputs.base import Plan
from agent_constitution.errors import UserError
from tests.compile.support import make_repo, resolve_into_cache


def _plan(root, **settings) -> Plan:
    return Plan(root, root / "cache", Settings(**settings), (".", "svc"))


def test_a_segment_whose_rules_cannot_fit_is_refused_before_rendering(tmp_path, monkeypatch):
    root = make_repo(tmp_path / "repo")
    resolve_into_cache(root)
    plan = _plan(root, over_limit="error", agents=("agents-md", "codex"))
    [job] = preflight.OUTPUT.jobs(plan)
    assert preflight.OUTPUT.run(plan, job, locked=False).state  # the fixture fits
    monkeypatch.setattr(segment, "budget", lambda plan, path: (200, None))
    with pytest.raises(UserError) as caught:
        preflight.OUTPUT.run(plan, job, locked=False)
    message = caught.value.message
    assert message.startswith("svc/AGENTS.md: its compiled region is at least ") and "nothing was written" in message
    assert "load at most 32768 bytes of a chain" in message and "ac:4" in message
    assert caught.value.field == "compile.over-limit" and "to `exclude`" in caught.value.fix
    assert not (root / "svc" / "AGENTS.md").exists()
    # Under over-limit = "warn" nothing is refused: the render warns with the exact sizes.
    assert preflight.OUTPUT.run(_plan(root, agents=("agents-md", "codex")), job, locked=False).state


def test_a_missing_folder_is_refused_before_rendering_and_fresh_follows_the_files(tmp_path):
    root = make_repo(tmp_path / "repo")
    resolve_into_cache(root)
    plan = _plan(root)
    [job] = preflight.OUTPUT.jobs(plan)
    values = preflight.OUTPUT.run(plan, job, locked=False).values()
    assert preflight.OUTPUT.fresh(plan, job, values)
    (root / "svc").rmdir()
    assert not preflight.OUTPUT.fresh(plan, job, values)
    with pytest.raises(UserError, match="the segment's folder svc/ does not exist"):
        preflight.OUTPUT.run(plan, job, locked=False)
    assert not (root / "AGENTS.md").exists()
