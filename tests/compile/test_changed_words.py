"""Compile names each file it changed with the right word: `created` for a file that was not there,
`updated` for one it rewrote or took only its own entries out of, `removed` for one it deleted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution import fsio
from agent_constitution.compile import changed
from tests.compile.support import make_repo


def compile_(repo: Path) -> list[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_ACTIONS", "GITLAB_CI")}
    done = subprocess.run([sys.executable, "-m", "agent_constitution.cli", "compile"], cwd=repo, env=environ,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def test_a_first_compile_creates_and_a_second_updates(tmp_path):
    repo = make_repo(tmp_path / "repo")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    first = compile_(repo)
    assert {"created AGENTS.md", "created svc/AGENTS.md", "created CLAUDE.md", "created .claude/settings.json"} <= set(first)
    assert not [line for line in first if line.startswith(("updated ", "removed "))], first
    manifest = repo / "rules.toml"
    manifest.write_text(manifest.read_text().replace('"ac:8"]', '"ac:8", "ac:7"]', 1))
    second = compile_(repo)
    assert "updated AGENTS.md" in second and not [line for line in second if line.startswith("created ")], second


def test_watchers_nest_and_end_with_their_block(tmp_path):
    told: list[tuple[str, str]] = []
    with fsio.watching(lambda path: told.append(("outer", os.path.basename(path)))):
        with pytest.raises(RuntimeError), fsio.watching(lambda path: told.append(("inner", os.path.basename(path)))):
            fsio.write_atomic(tmp_path / "a", "1")
            raise RuntimeError  # a block that fails still takes its hook off
        fsio.write_atomic(tmp_path / "b", "1")
    fsio.write_atomic(tmp_path / "c", "1")
    assert told == [("inner", "a"), ("outer", "a"), ("outer", "b")]


def test_the_words_follow_the_files(tmp_path):
    (tmp_path / "old.json").write_text("{}")
    (tmp_path / "kept.json").write_text("{}")
    with changed.watch() as absent:
        fsio.write_atomic(tmp_path / "new.json", "{}")
        fsio.write_atomic(tmp_path / "skill" / "SKILL.md", "x")  # a folder of files: the folder is new
        fsio.write_atomic(tmp_path / "new.json", "{ }")  # a second write of the same run: still created
        fsio.write_atomic(tmp_path / "old.json", "[]")
        fsio.remove(tmp_path / "kept.json", within=tmp_path)
    fsio.write_atomic(tmp_path / "after.json", "{}")  # after the block: not watched
    assert str(tmp_path / "after.json") not in absent
    assert changed.lines(tmp_path, ["new.json", "old.json", "skill"], ["kept.json", "old.json"], absent) == [
        "created new.json", "updated old.json", "created skill", "removed kept.json", "updated old.json"]
    assert str(tmp_path) not in absent
