"""The report's evidence reads the tree through the run's shared read, and digests what it always has."""

from __future__ import annotations

import builtins
import io
from pathlib import Path

import pytest

from agent_constitution.checks.api import Finding
from agent_constitution.checks.evidence import Reader
from agent_constitution.checks.model import Outcome, Result
from agent_constitution.checks.runner import Subjects
from agent_constitution.checks.scan import scan

from .conftest import git


def _tree(root: Path, body: bytes) -> Subjects:
    root.mkdir()
    git(root, "init", "-q")
    (root / "src").mkdir()
    (root / "src/a.py").write_bytes(body)
    (root / "notes.md").write_bytes(b"plain\n")
    return Subjects(scan(root))


RESULT = Result(".", "ac:2", Outcome.VIOLATION, (Finding("TODO left", "src/a.py", 2), Finding("x", "notes.md", 1)))


def test_evidence_opens_no_file_the_run_already_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    subjects = _tree(tmp_path / "repo", b"x = 1\n# TODO\n")
    for path in subjects.scan.files:  # the input sets' digests read every file first
        subjects.scan.contents.digest(subjects.root / path)
    inside = str(subjects.root) + "/"

    def refuse(opener):
        def guarded(file, *args, **kwargs):
            if isinstance(file, (str, Path)) and str(file).startswith(inside):
                raise AssertionError(f"opened {file} behind the scan's back")
            return opener(file, *args, **kwargs)
        return guarded

    monkeypatch.setattr(builtins, "open", refuse(builtins.open))
    monkeypatch.setattr(io, "open", refuse(io.open))
    seen = Reader(subjects).evidence(RESULT, None)
    assert "   2 | # TODO" in seen.excerpt and seen.files == ("src/a.py", "notes.md")


def test_a_crlf_file_is_digested_with_universal_newlines(tmp_path: Path):
    """As `read_text` read it before: a CRLF file and its LF twin give one digest and one excerpt."""
    crlf = Reader(_tree(tmp_path / "crlf", b"x = 1\r\n# TODO\r\n")).evidence(RESULT, None)
    lf = Reader(_tree(tmp_path / "lf", b"x = 1\n# TODO\n")).evidence(RESULT, None)
    assert crlf == lf and "\r" not in crlf.excerpt
    other = Reader(_tree(tmp_path / "other", b"x = 2\n# TODO\n")).evidence(RESULT, None)
    assert other.digest != lf.digest


@pytest.mark.parametrize("body", [b"x = 1\n# TODO\n", "x = '\u00e9'\n# TODO\n".encode(), b"x = 1\r# TODO\r\n",
                                  "x = '\u00e9'\r\n# TODO\r\n".encode(), b"x = \xff\n# TODO\n", b""])
def test_the_digest_covers_the_text_as_read_text_decodes_it(tmp_path: Path, body: bytes):
    """An ASCII file is digested as read without being decoded; every other one as its decoded text
    (universal newlines) encoded again, and a file that is not UTF-8 as unreadable: one formula."""
    import hashlib

    try:
        text = body.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError:
        text = None
    seed = [RESULT.ref, str(RESULT.revision), RESULT.check or "", RESULT.segment, RESULT.subject]
    expected = hashlib.sha256("\0".join(seed).encode())
    expected.update(b"\0src/a.py\0" + (b"\0(not readable)" if text is None else text.encode()))
    expected.update(b"\0notes.md\0plain\n")
    seen = Reader(_tree(tmp_path / "repo", body)).evidence(RESULT, None)
    assert seen.digest == "sha256:" + expected.hexdigest()
    assert ("   2 | # TODO" in seen.excerpt) == (text is not None and "TODO" in text)


def test_the_shared_read_gives_each_files_bytes_and_the_errors_a_read_gives(tmp_path: Path):
    """One unbuffered read of the whole file (`Contents.read_bytes`), whatever its size."""
    from agent_constitution.checks.contents import TEXT_LIMIT, Contents

    bodies = {"empty": b"", "small": b"a\r\nb\0", "large": bytes(range(256)) * (TEXT_LIMIT // 256 + 3)}
    for name, body in bodies.items():
        (tmp_path / name).write_bytes(body)
    contents = Contents()
    assert {name: contents.read_bytes(tmp_path / name) for name in bodies} == bodies
    assert contents.read_bytes(str(tmp_path / "small")) == bodies["small"]  # kept: the same bytes by name
    with pytest.raises(FileNotFoundError):
        contents.read_bytes(tmp_path / "missing")
    with pytest.raises(IsADirectoryError):
        contents.read_bytes(tmp_path)
