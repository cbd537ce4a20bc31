"""`files_digest`: the one digest of a plain folder's files (a constitution edition, a skill folder)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from agent_constitution.sources.digest import files_digest


def _expected(folder: Path, relatives: list[str]) -> str:
    total = hashlib.sha256()
    for relative in relatives:
        total.update(relative.encode() + b"\0" + hashlib.sha256((folder / relative).read_bytes()).digest())
    return "sha256:" + total.hexdigest()


def test_files_in_path_order_name_by_name(tmp_path):
    for relative in ("z.md", "a/x.md", "a-b/y.md", "a.md", "a/b/deep.md"):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(relative)
    # "a" sorts before "a-b" and "a.md" as a path part ("a/…" first), unlike the plain strings.
    assert files_digest(tmp_path) == _expected(tmp_path, ["a/b/deep.md", "a/x.md", "a-b/y.md", "a.md", "z.md"])


def test_byte_code_and_linked_folders_are_left_out_and_every_byte_counts(tmp_path):
    (tmp_path / "index.toml").write_text("revision = '0.1'\n")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / "stale.pyc").write_bytes(b"\0")
    outside = tmp_path.parent / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("not in the folder")
    os.symlink(outside, tmp_path / "linked")
    before = files_digest(tmp_path)
    assert before == _expected(tmp_path, ["index.toml"])
    (tmp_path / "index.toml").write_text("revision = '0.2'\n")
    assert files_digest(tmp_path) != before
