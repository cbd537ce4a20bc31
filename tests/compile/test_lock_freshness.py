"""The lock stage's up-to-date check over a path source's files: one signature of their status
(`tasks.lock.inputs_signature`) instead of a doit file dependency per file. An edit, a new, removed
or renamed file re-runs the lock stage; a touch re-runs it and rewrites nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.compile.support import make_repo
from tests.compile.test_doit import doit


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    made = make_repo(tmp_path / "repo")
    # Without rule 6, whose requirement across subtrees is warned about on every run (a run that
    # warns re-runs the lock stage each time, to warn again).
    manifest = made / "rules.toml"
    manifest.write_text(manifest.read_text().replace('"ac:5", "ac:6", "ac:8"', '"ac:5", "ac:8"').replace(
        'exclude = ["ac:3", "ac:6"]', 'exclude = ["ac:3"]'))
    doit(made, "compile")
    return made


def _outputs(repo: Path) -> dict[str, bytes]:
    paths = [repo / "rules.lock", repo / "AGENTS.md", repo / "svc" / "AGENTS.md", *(repo / "cache" / "resolved").glob("*.json")]
    return {str(path.relative_to(repo)): path.read_bytes() for path in paths}


def _executed(repo: Path) -> set[str]:
    return {line[3:] for line in doit(repo, "compile").stdout.splitlines() if line.startswith(".  ")}


def test_unchanged_files_leave_the_lock_up_to_date(repo):
    assert "lock" not in _executed(repo)


def test_an_edit_reruns_the_lock_and_what_it_changes(repo):
    rule = repo / "src" / "rules" / "7.toml"
    rule.write_text(rule.read_text().replace("Text of rule 7.", "Text of rule 7, reworded."))
    assert {"lock", "agents:svc/AGENTS.md"} <= _executed(repo)
    assert "Text of rule 7, reworded." in (repo / "svc" / "AGENTS.md").read_text()
    assert "lock" not in _executed(repo)


def test_a_touch_reruns_the_lock_stage_once_and_rewrites_nothing(repo):
    before = _outputs(repo)
    rule = repo / "src" / "rules" / "7.toml"
    later = rule.stat().st_mtime_ns + 5_000_000_000
    os.utime(rule, ns=(later, later))
    executed = _executed(repo)
    assert "lock" in executed and not any(task.startswith("agents:") and task.endswith("AGENTS.md") for task in executed)
    assert _outputs(repo) == before
    assert "lock" not in _executed(repo)


@pytest.mark.parametrize("change", ["add", "remove", "rename"])
def test_a_new_removed_or_renamed_file_reruns_the_lock(repo, change):
    extra = repo / "src" / "manifests" / "extra.toml"
    extra.parent.mkdir()
    extra.write_text('rules = ["ac:1"]\n')
    if change != "add":
        assert "lock" in _executed(repo)
        if change == "remove":
            extra.unlink()
        else:
            extra.rename(extra.with_name("other.toml"))
    before = _outputs(repo)
    assert "lock" in _executed(repo)
    assert _outputs(repo) == before  # nothing the lock reads from changed
    assert "lock" not in _executed(repo)


def test_a_manifest_edit_reruns_the_lock(repo):
    manifest = repo / "rules.toml"
    manifest.write_text(manifest.read_text().replace('rules = ["ac:4", "ac:7"]', 'rules = ["ac:4"]'))
    assert "lock" in _executed(repo)
    assert '"ac:7"' not in (repo / "rules.lock").read_text()
