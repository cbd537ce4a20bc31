"""A plain folder's earlier constitution texts, read from the git repository the folder is in.

A folder source has no commit, yet a manifest pinned at an older revision must keep its text (seed
000: a manifest pinned at an old revision does not change). When the folder lies in a git working
tree, that repository's history holds the older texts:

    repository_of(folder) -> Path | None
        The working tree enclosing `folder` (None outside git, or in a bare repository).
    published_revisions(folder, edition) -> Iterator[tuple[str, str]]
        (commit hex, revision) of each commit reachable from HEAD that changed the folder's
        `constitution/<edition>/`, newest first; the revision is what that commit's `index.toml`
        says (read from the blob; a commit whose index has none is skipped).
    folder_at(folder, commit, display) -> Snapshot
        The folder as `commit` holds it: the commit's tree is extracted into the user cache exactly
        as a git source's is (`cache.store_tree`: from the blobs, links refused, the size limits),
        keyed by the repository's folder; `root` is the folder's place inside that tree.

Only commits whose `constitution/<edition>/` tree differs from every parent's count as changing it
(git's own rule for path-limited history), so the commit found for a revision stays the same while
unrelated commits are made.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path

import pygit2

from agent_constitution.errors import UserError
from agent_constitution.sources import cache
from agent_constitution.sources.snapshot import Snapshot
from agent_constitution.sources.urls import normalize_url


def repository_of(folder: Path) -> Path | None:
    found = pygit2.discover_repository(str(folder))
    if found is None:
        return None
    workdir = pygit2.Repository(found).workdir
    return Path(workdir).resolve() if workdir else None


def published_revisions(folder: Path, edition: str) -> Iterator[tuple[str, str]]:
    workdir = repository_of(folder)
    if workdir is None:
        return
    repo = pygit2.Repository(str(workdir))
    if repo.head_is_unborn:
        return
    parts = [*_inside(folder, workdir), "constitution", edition]
    revisions: dict[str, str | None] = {}  # edition tree id → the revision its index.toml says
    walker = repo.walk(repo.head.target, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME)
    for commit in walker:
        tree = _subtree(commit.tree, parts)
        if tree is None or any(getattr(_subtree(parent.tree, parts), "id", None) == tree.id for parent in commit.parents):
            continue
        key = str(tree.id)
        if key not in revisions:
            revisions[key] = _revision(tree)
        if revisions[key] is not None:
            yield str(commit.id), revisions[key]


def folder_at(folder: Path, commit: str, display: str) -> Snapshot:
    workdir = repository_of(folder)
    repo = None if workdir is None else pygit2.Repository(str(workdir))
    if repo is None or not _is_commit(repo, commit):
        where = "is in no git working tree" if workdir is None else f"is in the repository {workdir}, which has no such commit"
        raise UserError(
            f"{display}: commit {commit} of the repository its folder is in cannot be read: the folder {folder} {where}",
            fix="lock again (`doit lock`): the pinned revision is then read from the folder's history anew",
        )
    key = normalize_url(str(workdir))
    shown = f"{display} (the repository {workdir})"
    hit = cache.stored_tree(key, commit, display=shown)
    tree, digest = hit or cache.store_tree(repo, key, commit, display=shown)
    return Snapshot(key=key, commit=commit, digest=digest, root=tree.joinpath(*_inside(folder, workdir)))


def _is_commit(repo: pygit2.Repository, commit: str) -> bool:
    try:
        return isinstance(repo[commit], pygit2.Commit)
    except (KeyError, ValueError):
        return False


def _inside(folder: Path, workdir: Path) -> tuple[str, ...]:
    return folder.resolve().relative_to(workdir).parts


def _subtree(tree: pygit2.Tree, parts: list[str]) -> pygit2.Tree | None:
    for name in parts:
        if name not in tree:
            return None
        entry = tree[name]
        if not isinstance(entry, pygit2.Tree):
            return None
        tree = entry
    return tree


def _revision(edition: pygit2.Tree) -> str | None:
    """What the edition's index.toml says its revision is; None when there is no such text."""
    if "index.toml" not in edition or not isinstance(edition["index.toml"], pygit2.Blob):
        return None
    try:
        revision = tomllib.loads(edition["index.toml"].data.decode("utf-8")).get("revision")
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return revision if isinstance(revision, str) else None
