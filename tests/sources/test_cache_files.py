"""Every kind of file in the caches is opened without blocking: a FIFO (or another non-regular file) in its
place is a cache miss or one clear error, never a wait for a writer; and a full disk or a read-only cache
is one `UserError`, never a traceback."""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

import pytest

from agent_constitution import fsio
from agent_constitution.errors import UserError, WriteError
from agent_constitution.readers import read_cached
from agent_constitution.ruleset import relock
from agent_constitution.ruleset.resolved import INDEX, FOLDER as RESOLVED, read_index, read_resolved
from agent_constitution.sources import cache, fetch, parsed
from agent_constitution.sources.urls import locate


def finishes(action):
    """Run `action` in a thread: what it returned or raised, or a failure when it is still waiting after
    a minute (a blocked open never ends; the bound only turns a hang into a failure)."""
    done: dict = {}

    def run():
        try:
            done["value"] = action()
        except BaseException as error:  # noqa: BLE001 - handed back to the test
            done["error"] = error

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(60)
    if worker.is_alive():
        for fifo in _fifos:  # let the blocked open through, so the thread ends
            try:
                os.close(os.open(fifo, os.O_RDWR | os.O_NONBLOCK))
            except OSError:
                pass
        pytest.fail("blocked on a FIFO")
    if "error" in done:
        raise done["error"]
    return done.get("value")


_fifos: list[Path] = []


def fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir():
        import shutil

        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()
    os.mkfifo(path)
    _fifos.append(path)
    return path


def test_read_cached_takes_a_fifo_a_folder_and_a_missing_file_as_a_miss(tmp_path: Path):
    assert finishes(lambda: read_cached(fifo(tmp_path / "f"))) is None
    (tmp_path / "d").mkdir()
    assert read_cached(tmp_path / "d") is None
    assert read_cached(tmp_path / "missing") is None
    (tmp_path / "r").write_bytes(b"x")
    assert read_cached(tmp_path / "r") == b"x"


def test_parsed_rule_cache_and_user_key(tmp_path: Path, user_cache: Path):
    source = tmp_path / "source"
    (source / "rules").mkdir(parents=True)
    (source / "rules" / "source.toml").write_text('name = "t"\n')
    parsed.user_key()  # made by the first load that keeps a table (`save`), never by reading
    key_path = parsed.ParsedFiles(source)._path
    assert key_path is not None
    fifo(key_path)  # the parsed-rule cache's key path: the reproduction of issue 37
    assert finishes(lambda: parsed.ParsedFiles(source)._read()) == (0, {})
    fifo(user_cache / parsed.FOLDER / parsed.KEY)  # this user's key
    assert finishes(parsed.user_key) is None
    assert finishes(lambda: parsed.ParsedFiles(source)._read()) == (0, {})


def test_a_tree_whose_proof_is_a_fifo_is_extracted_again(tmp_path: Path, origin: Path, user_cache: Path):
    snapshot = fetch(url=str(origin), tag="v1.0.0", base_dir=tmp_path)
    proof = snapshot.root.parent / cache.PROOF
    fifo(proof)
    assert not finishes(lambda: cache.intact(snapshot.key, snapshot.commit, snapshot.digest, str(snapshot.root)))
    again = finishes(lambda: fetch(url=str(origin), commit=snapshot.commit, base_dir=tmp_path))
    assert again.digest == snapshot.digest and proof.is_file()


def test_a_mirror_lock_file_that_is_a_fifo_is_refused(tmp_path: Path, origin: Path, user_cache: Path, capsys):
    location = locate(str(origin), base_dir=tmp_path)
    path = cache.mirror_path(location.key)
    lock = fifo(path.with_name(path.name + ".lock"))
    with pytest.raises(UserError) as raised:
        finishes(lambda: fetch(url=str(origin), branch="main", base_dir=tmp_path))
    assert f"error: {lock}: the lock file is not a regular file (a FIFO, socket or device)" in str(raised.value)
    assert "fix: delete it; it is made again" in str(raised.value)
    lock.unlink()
    fetch(url=str(origin), branch="main", base_dir=tmp_path)
    # With a mirror fetched earlier, the fetch that cannot lock goes on with that copy, and says why.
    fifo(lock)
    capsys.readouterr()
    assert finishes(lambda: fetch(url=str(origin), branch="main", base_dir=tmp_path)).commit is not None
    assert "warning: the lock file is not a regular file" in capsys.readouterr().err


def test_lock_state_resolved_documents_and_outputs(tmp_path: Path, user_cache: Path):
    project_cache = tmp_path / "cache"
    fifo(project_cache / relock.STATE)
    assert finishes(lambda: relock._read_state(project_cache)) is None
    fifo(project_cache / RESOLVED / INDEX)
    assert finishes(lambda: read_index(project_cache)) is None
    document = fifo(project_cache / RESOLVED / "root.json")
    with pytest.raises(UserError) as raised:
        finishes(lambda: read_resolved(document))
    assert "not a resolution this version writes" in str(raised.value)
    # An output whose place holds a FIFO is replaced, not read first.
    output = fifo(project_cache / "checks" / "report.json")
    assert finishes(lambda: fsio.write_if_changed(output, "{}\n", within=project_cache)) is True
    assert output.read_text() == "{}\n"


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_a_write_that_fails_is_one_user_error_and_leaves_nothing(tmp_path: Path, monkeypatch, code: int):
    target = tmp_path / "cache" / "out.json"
    target.parent.mkdir()
    real = os.replace

    def failing(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(WriteError) as raised:
        fsio.write_atomic(target, "x")
    monkeypatch.setattr(os, "replace", real)
    text = str(raised.value)
    assert text.startswith(f"error: {target}: cannot write the file: ")
    assert ("no space left" in text) == (code == errno.ENOSPC)
    assert ("read-only" in text) == (code == errno.EROFS)
    assert "AGENT_CONSTITUTION_CACHE" in text
    assert isinstance(raised.value, OSError) and raised.value.errno == code  # the judge's `except OSError` holds
    assert list(target.parent.iterdir()) == []  # no temp file left


def test_extracting_a_tree_into_a_full_user_cache(tmp_path: Path, origin: Path, user_cache: Path, monkeypatch):
    from agent_constitution.sources import content

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(content, "extract", full)
    with pytest.raises(UserError) as raised:
        fetch(url=str(origin), tag="v1.0.0", base_dir=tmp_path)
    assert "cannot write the file: no space left on the device" in str(raised.value)
    assert not list((user_cache / "trees").rglob("tree-objects"))


@pytest.mark.parametrize("inside", ["HEAD", "packed-refs", "refs/tags/v9", "objects/pack/pack-x.idx", "objects/ab/cdef"])
def test_a_fifo_inside_a_mirror_is_a_damaged_mirror(tmp_path: Path, origin: Path, user_cache: Path, inside: str):
    fetch(url=str(origin), tag="v1.0.0", base_dir=tmp_path)
    location = locate(str(origin), base_dir=tmp_path)
    mirror = cache.mirror_path(location.key)
    assert cache.special_file(mirror) is None
    fifo(mirror / inside)
    assert cache.special_file(mirror) == mirror / inside
    with pytest.raises(UserError) as raised:
        finishes(lambda: fetch(url=str(origin), tag="v1.0.0", base_dir=tmp_path))
    assert f"the user cache's copy of {origin} is damaged ({mirror / inside} is not a regular file)" in str(raised.value)
    assert f"fix: delete {mirror} and build again" in str(raised.value)
