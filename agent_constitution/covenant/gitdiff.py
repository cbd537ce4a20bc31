"""The change-set surface read from git (pygit2): the staged set, a range, or the worktree.

Produces the same unified diff a `git diff … | pdks covenant check --diff` pipe would carry, so both
inputs are judged alike, plus the reader for `file` sources: a declaration's repo file is read the
way the surface observes the tree — the index for the staged set, the `<to>` commit for a range,
the disk for the worktree.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pygit2

from agent_constitution.covenant import FailClosed
from agent_constitution.covenant.worlds import read_tree_file


class GitError(FailClosed):
    pass


def _text(data: bytes) -> str | None:
    return None if b"\0" in data else data.decode("utf-8", errors="replace")


def read(root: Path, *, staged: bool, revision_range: str | None) -> tuple[str, Callable[[str], str | None]]:
    """(unified diff text, file-source reader) of one git observation in the repo at `root`."""
    try:
        repo = pygit2.Repository(str(root))
        if revision_range is not None:
            merge_base = "..." in revision_range
            base, _, head = revision_range.partition("..." if merge_base else "..")
            to_commit = repo.revparse_single(head or "HEAD").peel(pygit2.Commit)
            from_commit = repo.revparse_single(base or "HEAD").peel(pygit2.Commit)
            if merge_base:
                from_commit = repo[repo.merge_base(from_commit.id, to_commit.id)]
            diff = repo.diff(from_commit.tree, to_commit.tree)
            reader = _tree_reader(repo, to_commit.tree)
        else:
            head = None if repo.head_is_unborn else repo.head.peel(pygit2.Commit).tree
            if staged:
                diff = repo.index.diff_to_tree(head) if head is not None else _unborn_index(repo)
                reader = _index_reader(repo)
            else:
                diff = head.diff_to_workdir() if head is not None else repo.diff(None, None)
                reader = _disk_reader(root)
        diff.find_similar()
        return diff.patch or "", reader
    except (pygit2.GitError, KeyError, ValueError) as error:
        raise GitError(f"git: {error}") from None


def _unborn_index(repo: pygit2.Repository) -> pygit2.Diff:
    empty = repo.get(repo.TreeBuilder().write())
    return repo.index.diff_to_tree(empty)


def _tree_reader(repo: pygit2.Repository, tree: pygit2.Tree) -> Callable[[str], str | None]:
    def read_file(path: str) -> str | None:
        try:
            entry = tree[path]
        except KeyError:
            return None
        blob = repo[entry.id]
        return _text(blob.data) if isinstance(blob, pygit2.Blob) else None

    return read_file


def _index_reader(repo: pygit2.Repository) -> Callable[[str], str | None]:
    index = repo.index

    def read_file(path: str) -> str | None:
        try:
            entry = index[path]
        except KeyError:
            return None
        return _text(repo[entry.id].data)

    return read_file


def _disk_reader(root: Path) -> Callable[[str], str | None]:
    return lambda path: read_tree_file(root, path)
