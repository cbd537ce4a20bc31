"""Local git repositories and a private user cache for the source tests; nothing reaches the network."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_constitution.sources.cache import ENV


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def commit_files(repo: Path, files: dict[str, str | None], message: str = "change") -> str:
    """Write (or, for a None value, delete) files in `repo`, commit them all and return the commit id."""
    for name, text in files.items():
        path = repo / name
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "user-cache"
    monkeypatch.setenv(ENV, str(folder))
    return folder


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """A source repository on branch main: one rule, tagged v1.0.0."""
    repo = tmp_path / "origin"
    repo.mkdir()
    git(repo, "init", "-q")
    commit_files(repo, {"rules/source.toml": 'name = "t"\n', "rules/1.toml": "id = 1\n", "README.md": "x\n"})
    git(repo, "tag", "v1.0.0")
    return repo
