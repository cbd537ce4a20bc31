"""Limits on a source's shape, read from git's tree objects before anything is written (issue 37, part 5).

The git bomb: nine tree objects, each naming the next ten times, name 10^9 empty files in a pack of
about a kilobyte. Before the limits, `compile` wrote files into the user cache without end.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pygit2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_constitution.errors import UserError
from agent_constitution.sources import changed_paths, fetch, newest_commit, shape
from tests.compile.support import make_repo

from .conftest import commit_files, git

BLOB = pygit2.enums.FileMode.BLOB
TREE = pygit2.enums.FileMode.TREE


def _tree(repo: pygit2.Repository, entries: dict[str, pygit2.Oid | tuple[str, pygit2.Oid]]) -> pygit2.Oid:
    """A tree object: name → a tree id, or ("blob", id)."""
    builder = repo.TreeBuilder()
    for name, target in entries.items():
        if isinstance(target, tuple):
            builder.insert(name, target[1], BLOB)
        else:
            builder.insert(name, target, TREE)
    return builder.write()


def _bomb(repo: pygit2.Repository, levels: int = 9, width: int = 10) -> pygit2.Oid:
    """`levels` trees, each naming the one below `width` times: width**levels files."""
    empty = repo.create_blob(b"")
    tree = _tree(repo, {f"f{i}": ("blob", empty) for i in range(width)})
    for _ in range(levels - 1):
        tree = _tree(repo, {f"d{i}": tree for i in range(width)})
    return tree


def _commit_tree(folder: Path, extra: dict[str, pygit2.Oid]) -> tuple[pygit2.Repository, str]:
    """Commit the working tree of `folder` (a git repository) with the trees `extra` added at its top,
    tagged v-bomb; returns the repository and the commit id."""
    repo = pygit2.Repository(str(folder))
    top = repo.head.peel(pygit2.Commit)
    builder = repo.TreeBuilder(top.tree)
    for name, tree in extra.items():
        builder.insert(name, tree, TREE)
    signature = pygit2.Signature("t", "t@t")
    commit = repo.create_commit("refs/heads/main", signature, signature, "bomb", builder.write(), [top.id])
    repo.create_reference("refs/tags/v-bomb", commit)
    return repo, str(commit)


def _files_under(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if not path.is_dir()] if folder.exists() else []


def test_a_git_bomb_is_refused_before_anything_is_written(origin: Path, user_cache: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch):
    repo, commit = _commit_tree(origin, {"bomb": _bomb(pygit2.Repository(str(origin)))})
    # Refused by the count of entries after reading a few trees: 9 of the bomb, the top and rules/, no more.
    monkeypatch.setenv(shape.OBJECTS_ENV, "12")
    with pytest.raises(UserError) as raised:
        fetch(url=str(origin), tag="v-bomb", base_dir=tmp_path)
    error = raised.value
    assert f"the source {origin} at commit {commit}: the tree names more than 100000 files and folders" in error.message
    assert "at bomb/d0/d0/d0/" in error.message and '"git bomb"' in error.message
    assert error.fix == f"if the source is meant to be this big, raise the limit: {shape.ENTRIES_ENV}=1000000"
    assert _files_under(user_cache / "trees") == []


@pytest.mark.parametrize(
    ("variable", "value", "build", "said"),
    [
        (shape.DEPTH_ENV, "32", lambda repo, leaf: _chain(repo, leaf, 40, "d"), "is 33 names deep, over the limit of 32"),
        (shape.PATH_ENV, "1024", lambda repo, leaf: _chain(repo, leaf, 6, "n" * 200), "a path of 1216 bytes is over the limit of 1024: deep/nnn"),
        (shape.OBJECTS_ENV, "5", lambda repo, leaf: _chain(repo, leaf, 6, "d"), "reading more than 5 tree objects"),
        (shape.ENTRIES_ENV, "10", lambda repo, leaf: _tree(repo, {f"x{i}": leaf for i in range(4)}), "more than 10 files"),
    ],
)
def test_each_limit_names_itself_and_its_variable(origin: Path, user_cache: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch, variable, value, build, said):
    mirror = pygit2.Repository(str(origin))
    leaf = _tree(mirror, {"f": ("blob", mirror.create_blob(b"x"))})
    _commit_tree(origin, {"deep": build(mirror, leaf)})
    monkeypatch.setenv(variable, value)
    with pytest.raises(UserError) as raised:
        fetch(url=str(origin), tag="v-bomb", base_dir=tmp_path)
    assert said in raised.value.message, raised.value.message
    assert f"raise the limit: {variable}={int(value) * 10}" in raised.value.fix
    assert _files_under(user_cache / "trees") == []
    monkeypatch.setenv(variable, str(10**6))  # raised, the same source is accepted
    assert (fetch(url=str(origin), tag="v-bomb", base_dir=tmp_path).root / "rules" / "1.toml").is_file()


def _chain(repo: pygit2.Repository, leaf: pygit2.Oid, length: int, name: str) -> pygit2.Oid:
    """Folders `length` deep, each holding the next, the last holding `leaf`'s file."""
    tree = leaf
    for level in range(length):
        tree = _tree(repo, {f"{name}{level}"[-250:]: tree})
    return tree


@pytest.mark.parametrize("value", ["many", "-1", "0", "1e6", "١٢"])
def test_a_limit_that_is_not_a_whole_number_is_an_error(origin: Path, user_cache: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch, value: str):
    monkeypatch.setenv(shape.ENTRIES_ENV, value)
    with pytest.raises(UserError) as raised:
        fetch(url=str(origin), tag="v1.0.0", base_dir=tmp_path)
    assert f"{shape.ENTRIES_ENV}={value!r} is not a whole number" in raised.value.message


def test_a_diff_against_a_bomb_is_refused_too(origin: Path, user_cache: Path, tmp_path: Path):
    old = git(origin, "rev-parse", "HEAD")
    _, new = _commit_tree(origin, {"bomb": _bomb(pygit2.Repository(str(origin)))})
    assert newest_commit(url=str(origin), base_dir=tmp_path) == new  # fetched into the mirror, nothing extracted
    assert changed_paths(url=str(origin), old=old, new=old, base_dir=tmp_path) == frozenset()
    with pytest.raises(UserError, match="more than 100000 files and folders"):
        changed_paths(url=str(origin), old=old, new=new, base_dir=tmp_path)


# --- the memo is exact: the count of a tree with shared subtrees is the count of a full walk ---------------

_scratch = pygit2.init_repository(tempfile.mkdtemp(prefix="shape-"), bare=True)
_blob = _scratch.create_blob(b"x")

# A tree as nested dicts; subtrees drawn from earlier ones are named again (shared by id).
_shapes = st.recursive(
    st.just({}),
    lambda children: st.dictionaries(st.sampled_from(["a", "bb", "ccc", "é", "名字"]), children | st.none(), max_size=4),
    max_leaves=30,
)


def _write(shape_: dict) -> pygit2.Oid:
    return _tree(_scratch, {name: ("blob", _blob) if child is None else _write(child) for name, child in shape_.items()})


def _paths(tree: pygit2.Tree, prefix: str = "") -> list[str]:
    """Every path the tree names, each place once: a full walk, no memo."""
    found = []
    for entry in tree:
        path = prefix + entry.name
        found.append(path)
        if entry.filemode == TREE:
            found += _paths(entry, path + "/")
    return found


@settings(max_examples=150, deadline=None)
@given(_shapes, st.integers(1, 4))
def test_the_count_is_a_full_walks_and_a_limit_refuses_exactly_past_it(drawn: dict, copies: int):
    one = _write(drawn)
    tree = _scratch[_tree(_scratch, {f"copy{i}": one for i in range(copies)})]
    paths = _paths(tree)
    entries, deepest, longest = len(paths), max(path.count("/") + 1 for path in paths), max(len(path.encode()) for path in paths)
    assert shape.check(tree, "t") == entries
    for variable, actual in ((shape.ENTRIES_ENV, entries), (shape.DEPTH_ENV, deepest), (shape.PATH_ENV, longest)):
        os.environ[variable] = str(actual)
        try:
            shape.check(tree, "t")
            if actual > 1:
                os.environ[variable] = str(actual - 1)
                with pytest.raises(UserError, match=variable):
                    shape.check(tree, "t")
        finally:
            del os.environ[variable]


# --- end to end: compile over a bomb stops with the message and writes nothing into the cache ---------------


def test_compile_over_a_git_bomb_stops_and_writes_nothing(tmp_path: Path):
    repo = make_repo(tmp_path / "repo")
    source = tmp_path / "source"
    (repo / "src").rename(source)
    git(source, "init", "-q")
    commit_files(source, {})
    _commit_tree(source, {"bomb": _bomb(pygit2.Repository(str(source)))})
    manifest = (repo / "rules.toml").read_text()
    (repo / "rules.toml").write_text(manifest.replace('ac = { path = "src" }', f'ac = {{ url = "{source}", tag = "v-bomb" }}'))
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["AGENT_CONSTITUTION_CACHE"] = str(tmp_path / "user-cache")
    run = subprocess.run([sys.executable, "-m", "doit", "compile"], cwd=repo, env=env, capture_output=True, text=True,
                         timeout=300)
    output = run.stdout + run.stderr
    assert run.returncode != 0 and "Traceback" not in output
    assert "the tree names more than 100000 files and folders" in output and shape.ENTRIES_ENV in output
    assert _files_under(tmp_path / "user-cache" / "trees") == []
    assert not (repo / "AGENTS.md").exists()
