"""A full disk and a read-only cache, for real: a tiny tmpfs filled to the last byte, and a read-only bind
mount (tests run as root, so a chmod would be ignored). Every command ends with one message, never a
traceback. Skipped where the test may not mount (not root, or no CAP_SYS_ADMIN)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from .test_reviewer import review, reviewed  # noqa: F401 - the fixture


def _mount(*args: str) -> bool:
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


@contextmanager
def tmpfs(folder: Path, size: str = "64k") -> Iterator[Path]:
    """`folder` as a tmpfs of `size`, unmounted at the end."""
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or not _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)):
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def fill(folder: Path) -> None:
    """Write to `folder` until its file system has no byte left."""
    filler = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        while os.write(filler, b"\0" * 512):
            pass
    except OSError:
        pass
    finally:
        os.close(filler)


@contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """`folder` bound read-only onto itself, what it holds kept."""
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or not _mount("--bind", str(folder), str(folder)):
        pytest.skip("cannot bind-mount here")
    try:
        if not _mount("-o", "remount,bind,ro", str(folder)):
            pytest.skip("cannot remount read-only here")
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def run(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doit", *args], cwd=root, capture_output=True, text=True,
                          env={**os.environ, **env})


def no_traceback(done: subprocess.CompletedProcess) -> str:
    text = done.stdout + done.stderr
    assert "Traceback" not in text, text
    return text


def test_a_project_cache_that_fills_up(reviewed: Path, tmp_path: Path):  # noqa: F811
    # doit's own database (cache/doit.sqlite3 by default) is kept on another disk: when it is on the full
    # one, doit itself stops with a traceback of sqlite3's before or after any task (doit's, not ours).
    db = ("--db-file", str(tmp_path / "doit.sqlite3"))
    with tmpfs(reviewed / "cache", "4m") as cache:
        assert run(reviewed, *db, "checks").returncode == 1
        fill(cache)
        (reviewed / "src/a.py").write_text('x = "TODO"  # edited\n')
        (reviewed / "src/b.py").write_text('y = "TODO"\n')
        done = run(reviewed, *db, "checks")
        text = no_traceback(done)
    assert done.returncode != 0
    assert "cannot write the file: no space left on the device" in text


def test_a_full_and_a_read_only_user_cache(reviewed: Path, tmp_path: Path):  # noqa: F811
    # A path source needs nothing of the user cache but the parsed-rule cache, which is only a speed-up.
    with tmpfs(tmp_path / "full-user-cache") as folder:
        fill(folder)
        done = run(reviewed, "checks", AGENT_CONSTITUTION_CACHE=str(folder))
        no_traceback(done)
    assert done.returncode == 1  # the check's violation, judged as always
    with read_only(tmp_path / "read-only-user-cache") as folder:
        done = run(reviewed, "checks", AGENT_CONSTITUTION_CACHE=str(folder))
        no_traceback(done)
    assert done.returncode == 1


def test_review_into_a_read_only_repository(reviewed: Path, tmp_path: Path):  # noqa: F811
    assert run(reviewed, "checks").returncode == 1
    (reviewed / "rules.review.toml").write_text("")
    with read_only(reviewed), tmpfs(reviewed / "cache", "4m"):  # the repository read-only, its cache not
        assert run(reviewed, "checks").returncode == 1
        done, _ = review(reviewed, tmp_path)
        text = no_traceback(done)
    assert done.returncode != 0
    assert "cannot write the file: the folder is read-only" in text
