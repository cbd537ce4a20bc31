"""`fetch`, `version_tags`, `newest_commit` and `read_at`: a source's versions and content (see the package docstring)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.sources import cache, content, limits, mirror, shape
from agent_constitution.sources.urls import Location, hide_secrets, locate
from agent_constitution.sources.parsed import parsed_files

_COMMIT = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True)
class Snapshot:
    """A source's content at one version: a cached commit tree, or a plain folder as it is on disk."""

    key: str
    commit: str | None
    digest: str
    root: Path


def fetch(
    *,
    url: str | None = None,
    path: str | None = None,
    tag: str | None = None,
    branch: str | None = None,
    rev: str | None = None,
    commit: str | None = None,
    base_dir: Path,
) -> Snapshot:
    pinned = _following(tag, branch, rev) or commit is not None
    location, display, plain = _where(url, path, base_dir, git=pinned)
    if plain:
        folder = location.folder

        digest = content.folder_digest(folder, f"the source {display} (the folder {folder})", parsed_files(folder))
        return Snapshot(key=location.key, commit=None, digest=digest, root=folder)
    with _damaged_mirror(location, display):
        if commit is not None:
            return _at_commit(location, commit, display)
        return _followed(location, display, tag, branch, rev)


def _following(tag: str | None, branch: str | None, rev: str | None) -> bool:
    """Whether the source follows a tag, branch or rev (one at most: two is a `UserError`)."""
    following = [name for name, value in (("tag", tag), ("branch", branch), ("rev", rev)) if value is not None]
    if len(following) > 1:
        raise UserError(
            f"a source follows one of tag, branch or rev, not {' and '.join(following)}",
            field=following[1],
            fix=f"keep only `{following[0]}`",
        )
    return bool(following)


def _followed(location, display: str, tag: str | None, branch: str | None, rev: str | None) -> Snapshot:
    """The snapshot of the commit a tag, branch or rev names now (the default branch when none is given)."""
    repo = mirror.open_mirror(location)
    # A tag names one commit for good; only branches and revs need the repository asked again.
    if repo is None or tag is None or f"refs/tags/{tag}" not in repo.references:
        repo = mirror.refresh(location, display=display)
    found = mirror.resolve(repo, tag=tag, branch=branch, rev=rev, display=display)
    hit = cache.stored_tree(location.key, found, display=display)
    root, digest = hit or cache.store_tree(repo, location.key, found, display=display)
    return Snapshot(key=location.key, commit=found, digest=digest, root=root)


# Set inside `tags_listed_once()`: location key → the tags listed (or why they could not be, by `list_tags`).
_listed: dict[str, list[tuple[str, str]] | UserError] | None = None
# Repositories asked at once by `list_tags`: each is a `git ls-remote` process, mostly waiting on the network.
_AT_ONCE = 8


@contextmanager
def tags_listed_once() -> Iterator[None]:
    """Within the block, each repository's tags are listed once: an upgrade plan reads them several times."""
    global _listed
    outer = _listed
    _listed = {} if outer is None else outer
    try:
        yield
    finally:
        _listed = outer


def list_tags(sources: Iterable[tuple[str | None, str | None, Path]]) -> None:
    """Inside `tags_listed_once()`: list the tags of several repositories, (url, path, base_dir), at once, so
    that `version_tags` answers from what was listed. A failure is kept, and raised when that repository's
    tags are asked for."""
    if _listed is None:
        raise RuntimeError("list_tags must be called inside tags_listed_once()")
    pending: dict[str, tuple[str | None, str | None, Path]] = {}
    for url, path, base_dir in sources:
        try:
            location, _, _ = _where(url, path, base_dir, git=True)
        except UserError:
            continue  # said where that source is read, in its turn
        if location.key not in _listed:
            pending.setdefault(location.key, (url, path, base_dir))
    if not pending:
        return
    from concurrent.futures import ThreadPoolExecutor  # only here: every fetch imports this module

    listed = _listed

    def one(key: str) -> None:
        url, path, base_dir = pending[key]
        try:
            version_tags(url=url, path=path, base_dir=base_dir)
        except UserError as error:
            listed[key] = error

    with ThreadPoolExecutor(max_workers=min(_AT_ONCE, len(pending))) as pool:
        list(pool.map(one, pending))


def version_tags(*, url: str | None = None, path: str | None = None, base_dir: Path) -> list[tuple[str, str]]:
    location, display, _ = _where(url, path, base_dir, git=True)
    if _listed is not None and location.key in _listed:
        found = _listed[location.key]
        if isinstance(found, UserError):
            raise found
        return found
    if location.folder is not None and not location.folder.is_dir() and mirror.open_mirror(location) is None:
        raise UserError(
            f"cannot reach the source {display}: the folder {location.folder} does not exist",
            fix="check the path; a relative path is read from the folder of the file that names it",
        )
    with _damaged_mirror(location, display):
        found = mirror.remote_tags(location, display=display)
    if _listed is not None:
        _listed[location.key] = found
    return found


def read_at(*, url: str | None = None, path: str | None = None, commit: str, name: str, base_dir: Path) -> bytes | None:
    """The bytes of the file `name` (a POSIX path) in the source at `commit`, None when it has none; read
    from the mirror's objects (fetched first when it lacks the commit), nothing is extracted."""
    import pygit2

    location, display, _ = _where(url, path, base_dir, git=True)
    with _damaged_mirror(location, display):
        repo = mirror.open_mirror(location)
        if repo is None or not mirror.has_commit(repo, commit):
            repo = mirror.refresh(location, display=display)
        if not mirror.has_commit(repo, commit):
            kind = "is not a commit (a tag of it names a tree or a blob)" if commit in repo else "is not in it"
            raise UserError(
                f"the source {display} lists {commit} among its tags, but that object {kind}",
                fix="follow another tag of the source; if the tag was just moved, run the command again",
            )
        tree = repo[commit].peel(pygit2.Commit).tree
        try:
            entry = tree[name]
        except KeyError:
            return None
        if not isinstance(entry, pygit2.Blob):
            return None
        # Sized from its header before it is read: a 2 GB source.toml is not read into memory.
        limits.budget(f"the source {display} at commit {commit}").add(name, repo.odb.read_header(entry.id)[1])
        return entry.data


def changed_paths(
    *, url: str | None = None, path: str | None = None, old: str, new: str, base_dir: Path
) -> frozenset[str] | None:
    """The paths (POSIX, from the tree's root) added, removed or changed between two commits of a source,
    compared by git's object ids in the mirror (no file is read); None when the mirror lacks either commit."""
    import pygit2

    location, display, _ = _where(url, path, base_dir, git=True)
    with _damaged_mirror(location, display):
        repo = mirror.open_mirror(location)
        if repo is None or not (mirror.has_commit(repo, old) and mirror.has_commit(repo, new)):
            return None
        trees = [repo[commit].peel(pygit2.Commit).tree for commit in (old, new)]
        for commit, tree in zip((old, new), trees):  # a diff walks every entry a bomb names
            shape.check(tree, f"the source {display} at commit {commit}")
        diff = repo.diff(*trees)
        return frozenset(item for delta in diff.deltas for item in (delta.old_file.path, delta.new_file.path))


def newest_commit(
    *, url: str | None = None, path: str | None = None, branch: str | None = None, base_dir: Path
) -> str:
    location, display, _ = _where(url, path, base_dir, git=True)
    with _damaged_mirror(location, display):
        repo = mirror.refresh(location, display=display)
        return mirror.resolve(repo, tag=None, branch=branch, rev=None, display=display)


@dataclass(frozen=True)
class Refs:
    """What a repository's names point at now: tags (annotated ones by their commit) and branches, by
    name, and its default branch's commit (None: it has none)."""

    tags: dict[str, str]
    branches: dict[str, str]
    head: str | None


def remote_refs(*, url: str | None = None, path: str | None = None, base_dir: Path) -> Refs:
    """The repository's names as it has them now, fetched into the mirror first with no fallback: a
    repository that cannot be reached raises (what `rules.lock` verification needs: an earlier copy
    would say what the names were, not what they are)."""
    import pygit2

    location, display, _ = _where(url, path, base_dir, git=True)
    with _damaged_mirror(location, display):
        repo = mirror.update(location, display=display)
        branches = {name.removeprefix("refs/heads/"): str(repo.references[name].peel(pygit2.Commit).id)
                    for name in repo.references if name.startswith("refs/heads/")}
        try:
            head = str(repo.head.peel(pygit2.Commit).id)
        except pygit2.GitError:
            head = None
        return Refs(dict(mirror.tags(repo)), branches, head)


def descends(*, url: str | None = None, path: str | None = None, base_dir: Path, commit: str, ancestor: str) -> bool:
    """Whether `ancestor` is in the history of `commit`, both in the mirror (False when either is not)."""
    location, display, _ = _where(url, path, base_dir, git=True)
    with _damaged_mirror(location, display):
        repo = mirror.open_mirror(location)
        if repo is None or not (mirror.has_commit(repo, commit) and mirror.has_commit(repo, ancestor)):
            return False
        return commit != ancestor and repo.descendant_of(commit, ancestor)


@contextmanager
def _damaged_mirror(location: Location, display: str) -> Iterator[None]:
    """Turn a git failure inside the cache (not a fetch: those are explained where they happen) into advice."""
    import pygit2

    try:
        yield
    except pygit2.GitError as error:
        raise UserError(
            f"the user cache's copy of {display} is damaged ({error})",
            fix=f"delete {cache.mirror_path(location.key)} and build again; it is fetched afresh",
        ) from None


def _at_commit(location: Location, commit: str, display: str) -> Snapshot:
    if not _COMMIT.match(commit):
        raise UserError(
            f"{commit!r} is not a commit id (40 lower-case hex digits)",
            field="commit",
            fix="lock again to record the commit the source resolves to",
        )
    hit = cache.stored_tree(location.key, commit, display=display)
    if hit is None:
        repo = mirror.open_mirror(location)
        if repo is None or not mirror.has_commit(repo, commit):
            try:
                repo = mirror.refresh(location, display=display)
            except UserError as error:
                # Nothing of it cached (a first build here, or the cache was deleted): say so.
                raise UserError(
                    f"{error.message}, and the user cache does not hold its commit {commit} (the lock pins it)",
                    fix=f"{error.fix}; once the source can be reached again, the next build fetches it"
                    " (deleting the user cache is always safe, it refills itself)",
                ) from None
        if not mirror.has_commit(repo, commit):
            raise UserError(
                f"the source {display} has no commit {commit} (the lock pins it)",
                fix="the commit may have been removed by a force-push: upgrade the source to lock a commit it "
                f"has; if it is still there, the cache's copy is damaged: delete {cache.mirror_path(location.key)}",
            )
        hit = cache.store_tree(repo, location.key, commit, display=display)
    root, digest = hit
    return Snapshot(key=location.key, commit=commit, digest=digest, root=root)


def _where(url: str | None, path: str | None, base_dir: Path, *, git: bool) -> tuple[Location, str, bool]:
    """The source's location, how to name it in messages, and whether it is read as a plain folder."""
    if (url is None) == (path is None):
        raise UserError(
            "a source has either `url` or `path`" + (", not both" if url is not None else ""),
            fix="write `url = \"github.com/owner/repo\"` for a git repository or `path = \"../rules\"` for a folder",
        )
    written = url if url is not None else path
    location = locate(written, base_dir=base_dir)
    display = hide_secrets(written)
    if path is not None and location.folder is None:
        location = Location(key=str((base_dir / path).resolve()), folder=(base_dir / path).resolve())
    if location.folder is None:
        return location, display, False
    folder = location.folder
    if not folder.is_dir():
        if git:
            return location, display, False  # the cache may hold it; fetching it says it is unreachable
        raise UserError(
            f"cannot reach the source {display}: the folder {folder} does not exist",
            fix="check the path; a relative path is read from the folder of the file that names it",
        )
    repository = (folder / ".git").exists() or ((folder / "HEAD").is_file() and (folder / "objects").is_dir())
    if git and not repository:
        raise UserError(
            f"the source {display} is a plain folder, not a git repository, so it has no tag, branch, rev or commit",
            fix="drop the tag, branch or rev to read the folder as it is, or make it a git repository",
        )
    plain = not repository if path is None else not git
    return location, display, plain
