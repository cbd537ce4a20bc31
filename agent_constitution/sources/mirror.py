"""A bare mirror of one source repository in the user cache: fetching it and resolving names to commits."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pygit2

from agent_constitution.errors import UserError
from agent_constitution.sources.cache import locked, mirror_path
from agent_constitution.sources.urls import Location

_REFSPECS = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]
# libgit2's wording when it reached a server that answered, but not as a git repository.
_NOT_A_REPOSITORY = (
    "could not find repository",
    "not a git repository",
    "status code: 404",
    "status code: 410",
    "content-type",
    "authentication",
    "repository not found",
)


def open_mirror(location: Location) -> pygit2.Repository | None:
    path = mirror_path(location.key)
    return pygit2.Repository(str(path)) if path.is_dir() else None


def refresh(location: Location, *, display: str) -> pygit2.Repository:
    """Fetch the repository into its mirror; offline, fall back to the mirror as last fetched."""
    try:
        return _update(location, display=display)
    except UserError as error:
        existing = open_mirror(location)
        if existing is None or not list(existing.references):
            raise
        print(
            f"warning: {error.message}; using the copy of {display} fetched earlier",
            file=sys.stderr,
        )
        return existing


def _update(location: Location, *, display: str) -> pygit2.Repository:
    path = mirror_path(location.key)
    with locked(path.with_name(path.name + ".lock")):
        if path.is_dir():
            return _fetch_into(pygit2.Repository(str(path)), location, display)
        # The first fetch fills a mirror aside and renames it, so a failure leaves no empty mirror.
        building = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"))
        try:
            _fetch_into(pygit2.init_repository(str(building), bare=True), location, display)
            os.rename(building, path)
        finally:
            shutil.rmtree(building, ignore_errors=True)
        return pygit2.Repository(str(path))


def _fetch_into(repo: pygit2.Repository, location: Location, display: str) -> pygit2.Repository:
    if location.folder is not None and not location.folder.is_dir():
        raise UserError(
            f"cannot reach the source {display}: the folder {location.folder} does not exist",
            fix="check the path; a relative path is read from the folder of the file that names it",
        )
    remote = repo.remotes.create_anonymous(location.fetch_url or str(location.folder))
    try:
        remote.fetch(_REFSPECS, prune=pygit2.enums.FetchPrune.PRUNE)
    except pygit2.GitError as error:
        raise _fetch_error(display, str(error)) from None
    for head in remote.list_heads(connect=False):
        if head.name == "HEAD" and head.symref_target:
            repo.set_head(head.symref_target)
    return repo


def _fetch_error(display: str, reason: str) -> UserError:
    if any(marker in reason.lower() for marker in _NOT_A_REPOSITORY):
        return UserError(
            f"{display} is not a git repository that can be fetched ({reason})",
            fix="check the URL: it must name a git repository you can read (for a plain folder use `path =`)",
        )
    return UserError(
        f"cannot reach the source {display} ({reason})",
        fix="check the URL and your network; a commit already in the cache needs no network",
    )


def resolve(repo: pygit2.Repository, *, tag: str | None, branch: str | None, rev: str | None, display: str) -> str:
    """The commit a tag, branch or rev (none of them: the default branch) names in the mirror."""
    if tag is not None:
        ref = repo.references.get(f"refs/tags/{tag}")
        if ref is None:
            raise UserError(f"the source {display} has no tag {tag!r}", fix=_known("tags", _tag_names(repo)))
        return str(ref.peel(pygit2.Commit).id)
    if branch is not None:
        ref = repo.references.get(f"refs/heads/{branch}")
        if ref is None:
            raise UserError(f"the source {display} has no branch {branch!r}", fix=_known("branches", _branches(repo)))
        return str(ref.peel(pygit2.Commit).id)
    if rev is not None:
        try:
            return str(repo.revparse_single(rev).peel(pygit2.Commit).id)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            raise UserError(
                f"the source {display} has no commit {rev!r}",
                fix="give a commit id (or a name git can resolve) that is on one of its branches or tags",
            ) from None
    try:
        return str(repo.head.peel(pygit2.Commit).id)
    except pygit2.GitError:
        raise UserError(
            f"the source {display} has no default branch",
            fix=_known("branches", _branches(repo)) + " (name one with `branch =`)",
        ) from None


def has_commit(repo: pygit2.Repository, commit: str) -> bool:
    try:
        return isinstance(repo[commit].peel(pygit2.Commit), pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError):
        return False


def _tag_names(repo: pygit2.Repository) -> list[str]:
    return sorted(name.removeprefix("refs/tags/") for name in repo.references if name.startswith("refs/tags/"))


def tags(repo: pygit2.Repository) -> list[tuple[str, str]]:
    """Every tag that leads to a commit, as (name, commit hex), sorted by name."""
    found = []
    for name in _tag_names(repo):
        try:
            found.append((name, str(repo.references[f"refs/tags/{name}"].peel(pygit2.Commit).id)))
        except (pygit2.GitError, pygit2.InvalidSpecError, ValueError):
            continue  # a tag of a tree or blob names no version of the source
    return found


def _branches(repo: pygit2.Repository) -> list[str]:
    return sorted(name.removeprefix("refs/heads/") for name in repo.references if name.startswith("refs/heads/"))


def _known(kind: str, names: list[str]) -> str:
    if not names:
        return f"the repository has no {kind}"
    shown = ", ".join(names[-20:])
    more = f" (last 20 of {len(names)})" if len(names) > 20 else ""
    return f"its {kind}{more}: {shown}"

