"""The shared scan (.gitignore honoured, segment views) and the change and record subjects."""

from __future__ import annotations

import json
import os
import re
import fnmatch
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_constitution.checks.api import Repository, Undecidable, glob_regex, match_files
from agent_constitution.checks.scan import scan
from agent_constitution.checks.subjects import read_change, read_record, resolve_change
from agent_constitution.errors import UserError

from .conftest import git, write


def test_scan_honours_gitignore_and_sees_untracked(repo: Path):
    write(repo, {"src/a.py": "x", "debug.log": "x", "cache/doit.db": "x", "notes/new.md": "x"})
    git(repo, "add", "README.md", "src/a.py")
    git(repo, "commit", "-qm", "init")
    (repo / "README.md").unlink()
    files = scan(repo).files
    assert "src/a.py" in files and "notes/new.md" in files and "rules.toml" in files
    assert "debug.log" not in files and "cache/doit.db" not in files
    assert "README.md" not in files  # tracked but deleted in the working tree
    assert list(files) == sorted(files)


def test_scan_outside_git_lists_everything(tmp_path: Path):
    write(tmp_path, {"a.txt": "x", "b/c.txt": "x", ".git/config": "not a repo"})
    assert scan(tmp_path).files == ("a.txt", "b/c.txt")


def test_segment_views(repo: Path):
    write(repo, {"svc/api/x.py": "", "svc/api/deep/y.py": "", "svc/web/z.py": "", "top.py": ""})
    found = scan(repo)
    segments = (".", "svc/api", "svc/api/deep")
    root = found.view(".", segments)
    assert "top.py" in root.files and "svc/web/z.py" in root.files and "svc/api/x.py" not in root.files
    api = found.view("svc/api", segments)
    assert api.files == ("x.py",) and api.root == repo / "svc/api"
    assert found.view("svc/api/deep", segments).files == ("y.py",)
    assert found.view("svc/api", segments) is api  # one view per segment, shared by its checks
    assert api.folder == "svc/api" and api.repository.files == found.files and api.repository.folder == ""
    assert root.repository is found.view() and found.view().repository is found.view()


def test_worktree_change(repo: Path):
    """What the session left uncommitted: edits, a rename, a deletion and new files git does not ignore."""
    write(repo, {"old.py": "x = 1\n" * 20, "gone.txt": "bye\n", "src/keep.py": "k = 1\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    (repo / "old.py").rename(repo / "moved.py")
    (repo / "gone.txt").unlink()
    write(repo, {"README.md": "hello\nworld\n", "src/new.py": "n = 2\n", "debug.log": "ignored"})
    spec = resolve_change(repo, "worktree")
    change = read_change(repo, spec)
    by_path = {f.path: f for f in change.files}
    assert set(by_path) == {"moved.py", "gone.txt", "README.md", "src/new.py"}
    assert by_path["moved.py"].old_path == "old.py" and by_path["moved.py"].new_text == "x = 1\n" * 20
    assert by_path["gone.txt"].new_path is None and by_path["gone.txt"].old_text == "bye\n"
    assert by_path["src/new.py"].old_path is None and by_path["src/new.py"].new_text == "n = 2\n"
    assert by_path["README.md"].added_lines() == [(2, "world")]
    assert [f.path for f in read_change(repo, spec, "src").files] == ["new.py"]
    write(repo, {"src/new.py": "n = 3\n"})
    assert resolve_change(repo, "worktree").index != spec.index  # a new state is a new change


def test_a_clean_worktree_is_the_change_pygit2_reads(repo: Path, monkeypatch):
    """A working tree git calls clean is told without pygit2, as the same change the diff gives, and
    one with anything to diff (an untracked file, a staged one) still goes through the diff."""
    from agent_constitution.checks import subjects

    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    write(repo, {"debug.log": "ignored"})  # ignored: the tree stays clean
    fast = resolve_change(repo, "worktree")
    monkeypatch.setattr(subjects, "_clean_head", lambda root: None)
    diffed = resolve_change(repo, "worktree")
    assert fast == diffed and fast.base == git(repo, "rev-parse", "HEAD^{tree}").strip()
    monkeypatch.undo()
    assert read_change(repo, fast).files == ()
    monkeypatch.setenv("GIT_INDEX_FILE", str(repo / "elsewhere"))  # what pygit2 does not read, nor does this
    assert subjects._clean_head(repo) == fast.base
    monkeypatch.delenv("GIT_INDEX_FILE")
    write(repo, {"notes.md": "new\n"})
    assert subjects._clean_head(repo) is None
    assert [f.path for f in read_change(repo, resolve_change(repo, "worktree")).files] == ["notes.md"]
    git(repo, "add", "notes.md")
    assert subjects._clean_head(repo) is None


def test_a_worktree_without_git_or_a_commit_is_read_as_before(tmp_path: Path, monkeypatch):
    from agent_constitution.checks import subjects

    git(tmp_path, "init", "-q")
    assert subjects._clean_head(tmp_path) is None  # no commit yet: what is staged is the change
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert subjects._clean_head(tmp_path) is None


def test_staged_change(repo: Path):
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    write(repo, {"new.py": "a = 1\n", "README.md": "hello\nworld\n"})
    git(repo, "add", "new.py", "README.md")
    change = read_change(repo, resolve_change(repo, "staged"))
    by_path = {f.path: f for f in change.files}
    assert set(by_path) == {"new.py", "README.md"}
    assert by_path["new.py"].old_path is None and by_path["new.py"].new_text == "a = 1\n"
    assert by_path["README.md"].added_lines() == [(2, "world")]
    assert change.messages == ()


def test_staged_change_before_first_commit(repo: Path):
    git(repo, "add", "README.md")
    change = read_change(repo, resolve_change(repo, "staged"))
    assert [(f.old_path, f.new_path) for f in change.files] == [(None, "README.md")]


def test_range_and_single_commit(repo: Path):
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    base = git(repo, "rev-parse", "HEAD").strip()
    write(repo, {"svc/a.py": "x = 1\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "add a")
    git(repo, "mv", "README.md", "README.txt")
    git(repo, "commit", "-qm", "rename readme")
    change = read_change(repo, resolve_change(repo, f"{base}.."))
    assert [m.strip() for m in change.messages] == ["rename readme", "add a"]
    assert {(f.old_path, f.new_path) for f in change.files} == {(None, "svc/a.py"), ("README.md", "README.txt")}
    single = read_change(repo, resolve_change(repo, "HEAD"))
    assert [(f.old_path, f.new_path) for f in single.files] == [("README.md", "README.txt")]
    segment = read_change(repo, resolve_change(repo, f"{base}..HEAD"), "svc")
    assert [f.path for f in segment.files] == ["a.py"] and segment.root == repo / "svc"


def test_unknown_revision_is_a_user_error(repo: Path):
    with pytest.raises(UserError, match="not a revision"):
        resolve_change(repo, "nope..HEAD")


def test_record(tmp_path: Path):
    events = [{"type": "user", "message": {"content": "hi"}},
              {"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Bash", "input": {}}]}}]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    assert [call.name for call in read_record(path).tool_calls()] == ["Bash"]
    path.write_text("{broken\n")
    with pytest.raises(Undecidable, match="not a JSON line"):
        list(read_record(path).tool_calls())


segment = st.text("ab", min_size=1, max_size=2)
paths = st.lists(segment, min_size=1, max_size=4).map("/".join)
patterns = st.lists(st.text("ab*?", min_size=1, max_size=3), min_size=1, max_size=4).map("/".join).filter(
    lambda pattern: "**" not in pattern)


@settings(max_examples=200)
@given(paths, patterns)
def test_glob_keeps_single_star_semantics(path: str, pattern: str):
    """Without `**`, a glob matches as fnmatch does with `*` and `?` kept inside one folder."""
    expected = path.count("/") == pattern.count("/") and fnmatch.fnmatchcase(path, pattern)
    assert bool(match_files((path,), pattern)) == expected


@settings(max_examples=100)
@given(st.lists(paths, max_size=6), st.lists(segment, max_size=2).map("/".join))
def test_double_star_spans_folders(files: list[str], tail: str):
    repo = Repository(Path("."), tuple(files))
    pattern = f"**/{tail}" if tail else "**"
    expected = sorted(f for f in files if not tail or f == tail or f.endswith("/" + tail))
    assert repo.glob(pattern) == expected
    assert all(re.fullmatch(r"[ab/]+", f) for f in repo.glob(pattern))


@settings(max_examples=150)
@given(st.lists(paths, max_size=8), st.lists(st.text("ab*?", min_size=1, max_size=3), min_size=1, max_size=3).map("/".join))
def test_prefix_search_finds_what_a_full_scan_finds(files: list[str], pattern: str):
    ordered = sorted(set(files))
    regex = glob_regex(pattern)
    assert list(match_files(ordered, pattern)) == [f for f in ordered if regex.fullmatch(f)]


@settings(max_examples=300)
@given(st.lists(st.lists(st.text("ab.py\n", min_size=1, max_size=3), min_size=1, max_size=4).map("/".join), max_size=8),
       st.lists(st.text("ab", min_size=1, max_size=2), max_size=2).map(lambda parts: "".join(p + "/" for p in parts)),
       st.sampled_from(["**", "**/*", "**/"]), st.text("ab.py", max_size=4))
def test_a_name_ending_glob_finds_what_its_expression_finds(files: list[str], prefix: str, form: str, ending: str):
    """`**`, `**/*.py`, `**/uv.lock` (below a folder too) are decided by the name's ending, as their
    expression decides them."""
    ordered = sorted(set(files))
    pattern = prefix + ("**" if form == "**" else form + ending)
    regex = glob_regex(pattern)
    assert list(match_files(ordered, pattern)) == [f for f in ordered if regex.fullmatch(f)]


def test_scan_leaves_out_links_that_lead_nowhere_or_to_folders(repo: Path):
    write(repo, {"docs/a.md": "x"})
    (repo / "to-file").symlink_to("README.md")
    (repo / "to-folder").symlink_to("docs")
    (repo / "broken").symlink_to("nowhere")
    git(repo, "add", "-A")
    files = scan(repo).files
    assert "to-file" in files and "to-folder" not in files and "broken" not in files


def test_scan_skips_an_untracked_nested_repository(repo: Path):
    """git lists an untracked nested repository as its folder (`inner/`): no check may open it as a file."""
    write(repo, {"inner/b.txt": "x", "docs/a.md": "x"})
    git(repo / "inner", "init", "-q")
    (repo / "to-folder").symlink_to("docs")
    files = scan(repo).files
    assert "docs/a.md" in files and "README.md" in files
    assert not [path for path in files if path.startswith("inner") or path == "to-folder"]


@settings(max_examples=500)
@given(st.sampled_from(["/", "/tmp/repo", ".", "rel/dir", "/tmp/repo/"]),
       st.lists(st.sampled_from(["a", "b.c", ".", "..", "", "x.", ".git", "é"]), max_size=5).map("/".join)
       | st.sampled_from(["/abs/p", "a/", ".", "./a", "a/.", "a//b"]))
def test_a_files_key_is_the_name_its_path_gives_it(root, path):
    """The shared contents are keyed by `os.fspath(root / path)`: the string join of a plain path
    names the same key, and every other path goes through `Path`."""
    assert Repository(Path(root), ())._full(path) == os.fspath(Path(root) / path)
