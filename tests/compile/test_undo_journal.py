"""The undo journal keeps what a failed compile puts back, without a second copy of the bytes."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agent_constitution import fsio
from agent_constitution.compile import undo


def _run(tmp_path: Path, monkeypatch, run: str = "one") -> tuple[Path, Path]:
    root, cache = tmp_path / "repo", tmp_path / "repo" / "cache"
    root.mkdir(exist_ok=True)
    monkeypatch.setenv(undo.RUN, run)
    return root, cache


def test_a_replaced_file_is_kept_as_a_hard_link_and_put_back(tmp_path: Path, monkeypatch):
    root, cache = _run(tmp_path, monkeypatch)
    kept = root / "AGENTS.md"
    kept.write_text("before\n")
    inode = kept.stat().st_ino
    with fsio.watching(undo.journal(root, cache)):
        fsio.write_atomic(kept, "after\n", within=root)
        fsio.write_atomic(kept, "after again\n", within=root)  # the first change's record stays
        fsio.write_atomic(root / "new.md", "new\n", within=root)
    fsio.write_atomic(root / "later.md", "x\n", within=root)  # after the block: not journaled
    records = [json.loads(path.read_text()) for path in sorted((cache / undo.JOURNAL / "one").glob("*.json"))]
    by_path = {record["path"]: record for record in records}
    assert set(by_path) == {"AGENTS.md", "new.md"}
    assert by_path["AGENTS.md"]["bytes"] is None and by_path["AGENTS.md"]["link"].endswith(".bytes")
    link = cache / undo.JOURNAL / "one" / by_path["AGENTS.md"]["link"]
    assert link.stat().st_ino == inode and link.read_text() == "before\n"  # the old file, not a copy
    assert undo.put_back_files(root, cache) == 2
    assert kept.read_text() == "before\n" and not (root / "new.md").exists()
    assert not (cache / undo.JOURNAL / "one").exists()


def test_without_links_the_journal_keeps_a_copy(tmp_path: Path, monkeypatch):
    root, cache = _run(tmp_path, monkeypatch)
    kept = root / "AGENTS.md"
    kept.write_bytes(b"before \xff\n")

    def refuse(*args, **kwargs):
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", refuse)
    with fsio.watching(undo.journal(root, cache)):
        fsio.remove(kept, within=root)
    [record] = [json.loads(path.read_text()) for path in (cache / undo.JOURNAL / "one").glob("*.json")]
    assert "link" not in record and record["bytes"] is not None
    assert undo.put_back_files(root, cache) == 1 and kept.read_bytes() == b"before \xff\n"


def test_other_runs_journals_are_cleared_once_per_run(tmp_path: Path, monkeypatch):
    root, cache = _run(tmp_path, monkeypatch, "two")
    (cache / undo.JOURNAL / "one").mkdir(parents=True)
    undo.forget_other_runs(cache)
    assert not (cache / undo.JOURNAL / "one").exists()
    (cache / undo.JOURNAL / "one").mkdir()
    undo.forget_other_runs(cache)  # the same run: not listed again
    assert (cache / undo.JOURNAL / "one").exists()
    monkeypatch.setenv(undo.RUN, "three")
    undo.forget_other_runs(cache)
    assert not (cache / undo.JOURNAL / "one").exists()
